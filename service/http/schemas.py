"""Marshmallow schemas: the request and response documents of ``openapi.yaml``.

Each schema here has a component of the same name in ``openapi.yaml``
(``COMPONENTS`` maps them), and ``tests/service/http/test_api_schemas.py``
checks field names, required fields and types against the spec, so the
code cannot drift from the contract. Requests are loaded through these
schemas. The documents the service assembles itself (a game summary, a
command's result, a page of events, ...) have one too: the API tests load
every such response through it as well as holding it to ``openapi.yaml``
(the views build plain dicts, to keep the command path cheap). What the
engine produces (a view, an event, a legal action, a board, odds) is a
``Dict`` here: its shape is the engine's and is specified in detail in
``openapi.yaml``, where every API test holds responses to it.

Numbers in JSON bodies are strict (``"3"`` and ``true`` are not a count;
``3.0`` is, as JSON Schema's integers go) and so are booleans (``1`` is not
``true``): a client bug should be a 400, not a guess.
"""

from __future__ import annotations

import re
from typing import Any

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from riskcore.model.options import OPTIONS, OptionSpec
from riskcore.modes import BUILT_IN_MODES
from riskcore.modes.team import TEAMS
from riskcore.protocol.commands import COMMAND_TYPES

__all__ = ["COMMAND_SCHEMAS", "COMPONENTS", "QUERIES", "ValidationError", "load_command"]

SEAT_ID = r"^(p[1-9]|n[12])$"
HEX_SEED = r"^[0-9a-fA-F]{2,128}$"


# What a name must not hold: control characters (NUL, CR, LF, ...), the invisible
# format characters (soft hyphen, zero-width joiners, word joiner, BOM) and the
# bidirectional marks, embeddings, overrides and isolates: a seat's name is shown
# to every player, and a U+202E turns the text after it around (issue 36, item 9).
# The same pattern is each name's ``pattern`` in openapi.yaml.
NAME_PATTERN = (
    r"^[^\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f"
    r"\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]*$"
)
_NAME = re.compile(NAME_PATTERN)
_NAME_REFUSED = (
    "a name must not hold control, format or bidirectional-override characters "
    "(U+0000-U+001F, U+007F-U+009F, U+200B-U+200F, U+202A-U+202E, U+2066-U+2069, ...)"
)


def _whole_name(value: str) -> bool:
    """``Regexp`` matches as ``re.match`` does: its ``$`` also matches before a
    final newline, which this refuses."""
    if not _NAME.fullmatch(value):
        raise ValidationError(_NAME_REFUSED)
    return True


NAME = [
    validate.Length(min=1, max=40),
    validate.Regexp(NAME_PATTERN, error=_NAME_REFUSED),
    _whole_name,
]
STATUSES = ["open", "running", "finished"]
CURSOR = r"^[0-9]{15}:[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$"
# Exact odds cost O(A*D) fractions: 100 x 100 takes ~70 ms and 130 kB of JSON.
MAX_ODDS_ARMIES = 100


class StrictBool(fields.Boolean):
    """Only JSON ``true``/``false``."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> bool:
        if not isinstance(value, bool):
            raise self.make_error("invalid")
        return value


class WholeNumber(fields.Integer):
    """An integer as JSON Schema counts one: ``3`` and ``3.0`` alike (a client's JSON
    library may write either), never ``"3"``, ``true`` or ``3.5``."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(strict=True, **kwargs)

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> int:
        if isinstance(value, bool):
            raise self.make_error("invalid", input=value)
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        whole: int = super()._deserialize(value, attr, data, **kwargs)
        return whole


def _int(**kwargs: Any) -> fields.Integer:
    return WholeNumber(**kwargs)


# -- creating and joining ----------------------------------------------------------


def _option_field(spec: OptionSpec) -> fields.Field:
    """The request field of one rule option, from its declaration."""
    if spec.choices is None:
        assert spec.bounds is not None
        return _int(validate=validate.Range(*spec.bounds))
    if isinstance(spec.default, bool):
        return StrictBool()
    if isinstance(spec.default, int):
        return _int(validate=validate.OneOf(spec.choices))
    return fields.String(validate=validate.OneOf(spec.choices))


# Rule options (riskcore.model.options.OPTIONS), one field each; ``variant`` is
# the mode's name from before game modes, still accepted (service.application.seating).
Rules = Schema.from_dict(
    {spec.name: _option_field(spec) for spec in OPTIONS}
    | {"variant": fields.String(validate=validate.OneOf(BUILT_IN_MODES))},
    name="Rules",
)


class SeatRequest(Schema):
    kind = fields.String(required=True, validate=validate.OneOf(["human", "bot", "open"]))
    name = fields.String(validate=NAME)
    bot = fields.String(validate=validate.Length(min=1, max=40))
    level = fields.String(validate=validate.Length(min=1, max=40))
    seed = fields.String(validate=validate.Regexp(HEX_SEED))
    team = fields.String(validate=validate.OneOf(TEAMS))

    @validates_schema
    def _bot_named(self, data: dict[str, Any], **kwargs: Any) -> None:
        _check_bot_named(data, "a bot seat names its bot or level, and only a bot seat does")


def _check_bot_named(data: dict[str, Any], message: str) -> None:
    """A bot (seat or entrant) names its bot, its level (which names the bot), or both;
    nothing else names either."""
    if (data["kind"] == "bot") != ("bot" in data or "level" in data):
        raise ValidationError(message, "bot")


class Clock(Schema):
    turn_seconds = _int(required=True, validate=validate.Range(10, 7 * 86400))
    on_timeout = fields.String(validate=validate.OneOf(["bot", "forfeit"]), load_default="bot")


class CreateGame(Schema):
    board = fields.String(
        load_default=None, allow_none=False, validate=validate.Length(min=1, max=40)
    )
    mode = fields.String(
        load_default=None, allow_none=False, validate=validate.OneOf(BUILT_IN_MODES)
    )
    rules = fields.Nested(Rules, load_default=dict)
    seats = fields.List(
        fields.Nested(SeatRequest), required=True, validate=validate.Length(min=2, max=6)
    )
    clock = fields.Nested(Clock, allow_none=True, load_default=None)


class JoinGame(Schema):
    seat = fields.String(validate=validate.Regexp(SEAT_ID))
    name = fields.String(validate=NAME)
    seed = fields.String(validate=validate.Regexp(HEX_SEED))
    team = fields.String(validate=validate.OneOf(TEAMS))


# -- commands: one schema per type, chosen by ``type`` ---------------------------------


def _command(name: str, **extra: fields.Field[Any]) -> type[Schema]:
    declared: dict[str, Any] = {
        "type": fields.String(required=True, validate=validate.Equal(COMMAND_TYPES[name].TYPE)),
        **extra,
    }
    return Schema.from_dict(declared, name=f"{name}_command")


def _card_number() -> fields.Integer:
    """An adventure card's number (Lord of the Rings): a place in the deck."""
    return _int(required=True, validate=validate.Range(min=0))


def _territory(**kwargs: Any) -> fields.String:
    return fields.String(validate=validate.Length(min=1, max=64), **kwargs)


COMMAND_SCHEMAS: dict[str, type[Schema]] = {
    "claim_territory": _command("claim_territory", territory=_territory(required=True)),
    "place_armies": _command("place_armies", territory=_territory(required=True), count=_int()),
    "trade_cards": _command(
        "trade_cards",
        cards=fields.List(_int(), required=True, validate=validate.Length(max=10)),
        bonus_territory=_territory(allow_none=True),
    ),
    "attack": _command(
        "attack",
        source=_territory(required=True),
        target=_territory(required=True),
        dice=_int(allow_none=True),
    ),
    "blitz": _command(
        "blitz", source=_territory(required=True), target=_territory(required=True), stop_at=_int()
    ),
    "defend": _command("defend", dice=_int(required=True)),
    "set_defence": _command("set_defence", always_most=StrictBool(required=True)),
    "occupy": _command("occupy", count=_int(required=True)),
    "fortify": _command(
        "fortify",
        source=_territory(required=True),
        target=_territory(required=True),
        count=_int(required=True),
    ),
    "end_phase": _command("end_phase"),
    "resign": _command("resign"),
    "claim_mission": _command(
        "claim_mission", card=fields.String(required=True, validate=validate.Length(min=1, max=16))
    ),
    "place_leader": _command("place_leader", territory=_territory(required=True)),
    "move_leader": _command(
        "move_leader", source=_territory(required=True), target=_territory(required=True)
    ),
    "play_adventure": _command(
        "play_adventure",
        adventure=_card_number(),
        source=_territory(allow_none=True),
        target=_territory(allow_none=True),
        shift=_int(allow_none=True),
    ),
    "claim_adventure": _command(
        "claim_adventure", adventure=_card_number(), territory=_territory(allow_none=True)
    ),
    "discard_adventure": _command("discard_adventure", adventure=_card_number()),
    "pass_adventure": _command("pass_adventure"),
    "bribe": _command(
        "bribe",
        neutral=fields.String(required=True, validate=validate.Length(min=1, max=16)),
        cards=fields.List(_int(), required=True, validate=validate.Length(min=1, max=5)),
    ),
    "reinforce_ally": _command(
        "reinforce_ally",
        neutral=fields.String(required=True, validate=validate.Length(min=1, max=16)),
    ),
}
_COMMAND_LOADERS = {name: schema() for name, schema in COMMAND_SCHEMAS.items()}


def load_command(body: Any) -> dict[str, Any]:
    """Validate a command body against the schema its ``type`` names."""
    if not isinstance(body, dict):
        raise ValidationError("a command is a JSON object", "_schema")
    kind = body.get("type")
    loader = _COMMAND_LOADERS.get(kind) if isinstance(kind, str) else None
    if loader is None:
        raise ValidationError(f"must be one of {sorted(_COMMAND_LOADERS)}", "type")
    loaded: dict[str, Any] = loader.load(body)
    return loaded


# -- queries -----------------------------------------------------------------------


MAX_MS = 2**53 - 1  # a time in Unix ms (JSON clients read it exactly)
HISTORY_FILTERS = ("player", "mode", "board", "result", "since", "until")


class HistoryFilters(Schema):
    """The archive's selection (issue 48): by a seat's name, mode, board, the named
    player's result, and creation time (Unix ms, ``since`` <= created < ``until``)."""

    player = fields.String(validate=validate.Length(1, 128))
    mode = fields.String(validate=validate.Length(1, 32))
    board = fields.String(validate=validate.Length(1, 64))
    result = fields.String(validate=validate.OneOf(["won", "lost"]))
    since = fields.Integer(validate=validate.Range(0, MAX_MS))
    until = fields.Integer(validate=validate.Range(0, MAX_MS))

    @validates_schema
    def _result_of_a_player(self, data: dict[str, Any], **kwargs: Any) -> None:
        if "result" in data and "player" not in data:
            raise ValidationError("result is the named player's: give player too", "result")


class ListGamesQuery(HistoryFilters):
    """``source``: the lobby (Redis: games open, running and finished lately) or the
    archive (every game projected to SQL); any history filter means the archive."""

    status = fields.String(validate=validate.OneOf(STATUSES))
    limit = fields.Integer(load_default=20, validate=validate.Range(1, 100))
    cursor = fields.String(validate=validate.Regexp(CURSOR))
    source = fields.String(validate=validate.OneOf(["lobby", "archive"]))


class ExportQuery(HistoryFilters):
    """``max``: at most this many records (default: every one selected)."""

    max = fields.Integer(validate=validate.Range(1, 1_000_000))


# The largest integer every JSON client reads exactly; also keeps stream ids valid.
MAX_VERSION = 2**53 - 1


class EventsQuery(Schema):
    since = fields.Integer(load_default=0, validate=validate.Range(0, MAX_VERSION))
    limit = fields.Integer(load_default=1000, validate=validate.Range(1, 1000))
    wait = fields.Float(load_default=0.0, validate=validate.Range(0, 30), allow_nan=False)


class StreamQuery(Schema):
    since = fields.Integer(validate=validate.Range(0, MAX_VERSION))


HEAD_HASH = re.compile(r"[0-9a-fA-F]{64}")


class VerifyQuery(Schema):
    """``expect_head``: a head hash (hex) the record must contain (repeatable: every
    one is checked; ``service.http.api.records`` reads the list)."""

    expect_head = fields.List(
        fields.String(validate=validate.Regexp(r"^[0-9a-fA-F]{64}$")),
        validate=validate.Length(max=64),
    )


class StateQuery(Schema):
    version = fields.Integer(required=True, validate=validate.Range(1, MAX_VERSION))


class OddsQuery(Schema):
    attackers = fields.Integer(required=True, validate=validate.Range(1, MAX_ODDS_ARMIES))
    defenders = fields.Integer(required=True, validate=validate.Range(1, MAX_ODDS_ARMIES))
    attacker_bonus = fields.Integer(load_default=0, validate=validate.Range(0, 2))
    defender_bonus = fields.Integer(load_default=0, validate=validate.Range(0, 2))
    one_die_vs_one = fields.Boolean(load_default=False)


# -- responses the service assembles ----------------------------------------------------


class SeatSummary(Schema):
    seat = fields.String(required=True)
    kind = fields.String(required=True, validate=validate.OneOf(["human", "bot", "open"]))
    name = fields.String(required=True, allow_none=True)
    bot = fields.String(required=True, allow_none=True)
    level = fields.String(required=True, allow_none=True)
    team = fields.String(required=True, allow_none=True)


class GameSummary(Schema):
    game_id = fields.String(required=True)
    status = fields.String(required=True, validate=validate.OneOf(STATUSES))
    version = fields.Integer(required=True, validate=validate.Range(0, None))
    board = fields.String(required=True)
    mode = fields.String(required=True, validate=validate.OneOf(BUILT_IN_MODES))
    rules = fields.Dict(required=True)
    clock = fields.Dict(required=True, allow_none=True)
    created = fields.String(required=True)
    seats = fields.List(fields.Nested(SeatSummary), required=True)
    open_seats = fields.List(fields.String(), required=True)
    seed_commitment = fields.String(required=True)
    tournament = fields.String(required=True, allow_none=True)
    winner = fields.String(allow_none=True)  # archive listings (issue 48)
    finished = fields.String(allow_none=True)


class LobbyView(GameSummary):
    status = fields.String(required=True, validate=validate.OneOf(["open", "finished"]))
    viewer = fields.String(required=True, allow_none=True)


class GameCreated(Schema):
    game = fields.Nested(GameSummary, required=True)
    tokens = fields.Dict(keys=fields.String(), values=fields.String(), required=True)


class GameJoined(Schema):
    game = fields.Nested(GameSummary, required=True)
    seat = fields.String(required=True)
    token = fields.String(required=True)


class GameList(Schema):
    games = fields.List(fields.Nested(GameSummary), required=True)
    next_cursor = fields.String(required=True, allow_none=True)


class EventEnvelope(Schema):
    version = fields.Integer(required=True)
    time = fields.String(required=True)
    actor = fields.String(required=True)
    bot = fields.Dict(allow_none=True)
    event = fields.Dict(required=True)


HEAD = r"^[0-9a-f]{64}$"


class EventPage(Schema):
    game_id = fields.String(required=True)
    version = fields.Integer(required=True)
    head = fields.String(required=True, allow_none=True, validate=validate.Regexp(HEAD))
    events = fields.List(fields.Nested(EventEnvelope), required=True)
    finished = fields.Boolean(required=True)


class CommandAccepted(Schema):
    game_id = fields.String(required=True)
    version = fields.Integer(required=True)
    head = fields.String(required=True, allow_none=True, validate=validate.Regexp(HEAD))
    events = fields.List(fields.Nested(EventEnvelope), required=True)


class LegalActions(Schema):
    game_id = fields.String(required=True)
    version = fields.Integer(required=True)
    seat = fields.String(required=True)
    actions = fields.List(fields.Dict(), required=True)


class Problem(Schema):
    type = fields.String(required=True)
    title = fields.String(required=True)
    status = fields.Integer(required=True)
    detail = fields.String(required=True)
    code = fields.String(required=True)
    current_version = fields.Integer()
    scope = fields.String()  # missing_scope (issue 49)
    errors = fields.Dict()


# -- tournaments ------------------------------------------------------------------------

FORMATS = ["round_robin", "games_per_pairing"]


class EntrantRequest(Schema):
    """A built-in bot (its ``bot``, ``level`` or both) or an HTTP bot (``kind`` http)."""

    kind = fields.String(load_default="bot", validate=validate.OneOf(["bot", "http"]))
    name = fields.String(validate=NAME)
    bot = fields.String(validate=validate.Length(min=1, max=40))
    level = fields.String(validate=validate.Length(min=1, max=40))

    @validates_schema
    def _bot_named(self, data: dict[str, Any], **kwargs: Any) -> None:
        _check_bot_named(data, "a bot entrant names its bot or level, and an HTTP entrant neither")


class CreateTournament(Schema):
    entrants = fields.List(
        fields.Nested(EntrantRequest), required=True, validate=validate.Length(min=1, max=16)
    )
    format = fields.String(load_default="round_robin", validate=validate.Length(min=1, max=40))
    games = _int(validate=validate.Range(1, 100))
    players = _int(load_default=3, validate=validate.Range(2, 6))
    mode = fields.String(
        load_default=None, allow_none=False, validate=validate.OneOf(BUILT_IN_MODES)
    )
    board = fields.String(
        load_default=None, allow_none=False, validate=validate.Length(min=1, max=40)
    )
    rules = fields.Nested(Rules, load_default=dict)
    parallel = _int(load_default=4, validate=validate.Range(1, 32))
    turn_seconds = _int(load_default=60, validate=validate.Range(10, 86400))


class ListTournamentsQuery(Schema):
    limit = fields.Integer(load_default=20, validate=validate.Range(1, 100))


class Entrant(Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    kind = fields.String(required=True, validate=validate.OneOf(["bot", "http"]))
    bot = fields.String(required=True, allow_none=True)
    level = fields.String(required=True, allow_none=True)


class Rating(Schema):
    mu = fields.Float(required=True)
    sigma = fields.Float(required=True)
    low = fields.Float(required=True)
    high = fields.Float(required=True)
    ordinal = fields.Float(required=True)


class Standing(Schema):
    rank = _int(required=True)
    entrant = fields.String(required=True)
    name = fields.String(required=True)
    games = _int(required=True)
    wins = fields.Float(required=True)
    mean_place = fields.Float(required=True, allow_none=True)
    rating = fields.Nested(Rating, required=True)


class TournamentGame(Schema):
    index = _int(required=True)
    pairing = _int(required=True)
    seats = fields.List(fields.String(), required=True)
    game_id = fields.String(required=True, allow_none=True)
    status = fields.String(
        required=True, validate=validate.OneOf(["scheduled", "running", "finished"])
    )
    winners = fields.List(fields.String(), required=True)
    places = fields.Dict(keys=fields.String(), values=fields.Integer(), allow_none=True)
    seed_commitment = fields.String(required=True)


class Tournament(Schema):
    tournament_id = fields.String(required=True)
    status = fields.String(required=True, validate=validate.OneOf(["running", "finished"]))
    created = fields.String(required=True)
    format = fields.String(required=True, validate=validate.OneOf(FORMATS))
    players = _int(required=True)
    games_per_pairing = _int(required=True)
    mode = fields.String(required=True, validate=validate.OneOf(BUILT_IN_MODES))
    board = fields.String(required=True)
    rules = fields.Dict(required=True)
    parallel = _int(required=True)
    turn_seconds = _int(required=True)
    entrants = fields.List(fields.Nested(Entrant), required=True)
    games_total = _int(required=True)
    games_finished = _int(required=True)
    games = fields.List(fields.Nested(TournamentGame), required=True)
    standings = fields.List(fields.Nested(Standing), required=True)
    seed_commitment = fields.String(required=True)
    seed = fields.String(required=True, allow_none=True)
    viewer = fields.String(allow_none=True)


class TournamentCreated(Schema):
    tournament = fields.Nested(Tournament, required=True)
    tokens = fields.Dict(keys=fields.String(), values=fields.String(), required=True)


class TournamentList(Schema):
    tournaments = fields.List(fields.Nested(Tournament), required=True)


# Query schemas mirror the query parameters of these operations.
QUERIES: dict[str, type[Schema]] = {
    "listGames": ListGamesQuery,
    "exportGames": ExportQuery,
    "listEvents": EventsQuery,
    "streamEvents": StreamQuery,
    "getStateAt": StateQuery,
    "getOdds": OddsQuery,
    "verifyRecord": VerifyQuery,
    "listTournaments": ListTournamentsQuery,
}

COMPONENTS: dict[str, type[Schema]] = {
    schema.__name__: schema
    for schema in (
        Rules,
        SeatRequest,
        Clock,
        CreateGame,
        JoinGame,
        SeatSummary,
        GameSummary,
        LobbyView,
        GameCreated,
        GameJoined,
        GameList,
        EventEnvelope,
        EventPage,
        CommandAccepted,
        LegalActions,
        Problem,
        EntrantRequest,
        CreateTournament,
        Entrant,
        Rating,
        Standing,
        TournamentGame,
        Tournament,
        TournamentCreated,
        TournamentList,
    )
}
