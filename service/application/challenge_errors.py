"""What can go wrong with challenges and the pairing queue (issue 49).

Plain errors with stable codes, like ``service.application.errors``;
``service.http.problems`` gives each its status::

    ServiceError
    ├── UnknownPlayer       a challenge names no account of that name       400
    ├── SelfChallenge       a challenge names (or is answered by) its maker  400
    ├── OpponentIsBot       a challenge names a bot account (use "bots")     400
    ├── RatedNeedsAccount   a rated game's seat asked for without an account 400
    ├── NotAddressed        the challenge names other accounts, no open seat 403
    ├── NotChallenger       only the challenger may cancel                  403
    ├── ChallengeNotFound   no challenge of that id the caller may see      404
    ├── SeekNotFound        no seek of that id                              404
    ├── AlreadyAnswered     the seat was answered the other way before       409
    ├── AlreadySeatedHere   the account has a seat in this challenge already 409
    ├── ChallengeClosed     it was declined, cancelled or started            409
    ├── ChallengeFull       every open seat is taken                         409
    ├── AlreadySeeking      the account waits in the pairing queue already   409
    ├── AlreadyPaired       the seek was paired: its game exists             409
    ├── ChallengeExpired    it expired unanswered                            410
    └── TooManyChallenges   the account has too many pending challenges      429
"""

from __future__ import annotations

from service.application.errors import ServiceError

__all__ = [
    "AlreadyAnswered",
    "AlreadyPaired",
    "AlreadySeatedHere",
    "AlreadySeeking",
    "ChallengeClosed",
    "ChallengeExpired",
    "ChallengeFull",
    "ChallengeNotFound",
    "NotAddressed",
    "NotChallenger",
    "OpponentIsBot",
    "RatedNeedsAccount",
    "SeekNotFound",
    "SelfChallenge",
    "TooManyChallenges",
    "UnknownPlayer",
]


class UnknownPlayer(ServiceError):
    code = "unknown_player"

    def __init__(self, name: str) -> None:
        super().__init__(f"no player named {name[:40]!r}")
        self.name = name


class SelfChallenge(ServiceError):
    code = "self_challenge"

    def __init__(self, detail: str = "an account cannot challenge itself") -> None:
        super().__init__(detail)


class OpponentIsBot(ServiceError):
    code = "opponent_is_bot"

    def __init__(self, name: str) -> None:
        super().__init__(f'{name!r} is a bot level\'s account: ask for it with "bots"')


class RatedNeedsAccount(ServiceError):
    code = "rated_needs_account"

    def __init__(
        self, detail: str = 'a rated game needs an account token; ask for "rated": false'
    ) -> None:
        super().__init__(detail)


class NotAddressed(ServiceError):
    code = "not_addressed"

    def __init__(self, challenge: str) -> None:
        super().__init__(f"challenge {challenge!r} is not addressed to you and has no open seat")


class NotChallenger(ServiceError):
    code = "not_challenger"

    def __init__(self, challenge: str) -> None:
        super().__init__(f"only the account that made challenge {challenge!r} may cancel it")


class ChallengeNotFound(ServiceError):
    code = "challenge_not_found"

    def __init__(self, challenge: str) -> None:
        super().__init__(f"no challenge {challenge[:48]!r}")


class SeekNotFound(ServiceError):
    code = "seek_not_found"

    def __init__(self, seek: str) -> None:
        super().__init__(f"no seek {seek[:48]!r} in the pairing queue")


class AlreadyAnswered(ServiceError):
    code = "already_answered"

    def __init__(self, challenge: str, answer: str) -> None:
        super().__init__(f"you {answer} challenge {challenge!r} already")
        self.answer = answer


class AlreadySeatedHere(ServiceError):
    code = "already_seated"

    def __init__(self, challenge: str) -> None:
        super().__init__(f"this account has a seat in challenge {challenge!r} already")


class ChallengeClosed(ServiceError):
    code = "challenge_closed"

    def __init__(self, challenge: str, status: str) -> None:
        super().__init__(f"challenge {challenge!r} is {status}")
        self.status = status


class ChallengeFull(ServiceError):
    code = "challenge_full"

    def __init__(self, challenge: str) -> None:
        super().__init__(f"every open seat of challenge {challenge!r} is taken")


class AlreadySeeking(ServiceError):
    code = "already_seeking"

    def __init__(self, seek: str) -> None:
        super().__init__(
            f"this account waits in the pairing queue already (seek {seek!r}); "
            f"leave it first (DELETE /v1/pairing/{seek})"
        )
        self.seek = seek


class AlreadyPaired(ServiceError):
    code = "already_paired"

    def __init__(self, seek: str, game: str | None) -> None:
        super().__init__(f"seek {seek!r} was paired: its game is {game!r}")


class ChallengeExpired(ServiceError):
    code = "challenge_expired"

    def __init__(self, challenge: str) -> None:
        super().__init__(f"challenge {challenge!r} expired unanswered")


class TooManyChallenges(ServiceError):
    code = "too_many_challenges"

    def __init__(self, limit: int) -> None:
        super().__init__(
            f"this account has {limit} pending challenges; wait for answers or cancel one"
        )
