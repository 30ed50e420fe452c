"""Deleting an account (issue 49): its tokens stop, its name goes, its games stay.

``Accounts.delete`` refuses the account's tokens at once and replaces its name
(``deleted-…``), so the name is free again and its profile is gone. Its games
are kept, their seats still bound to the account's row (its ratings stay in
the log they are rebuilt from), and listed under the replaced name: the
archive's rows (``Archive.rename_account``) and, for the games still in Redis,
the lobby's seat records. The game records themselves keep the names the
games were played under: their hash chain covers every event, the first one's
player names included, and a record that verifies is what the archive keeps.
"""

from __future__ import annotations

import contextlib

from service.application.accounts import Accounts
from service.application.lobby import Lobby
from service.store.archive import Archive
from service.store.errors import GameNotFound

__all__ = ["delete_account"]


def delete_account(accounts: Accounts, archive: Archive, lobby: Lobby, account_id: str) -> str:
    """Delete the account; its games listed under the name it now has (returned)."""
    replaced = accounts.delete(account_id)
    for game_id in archive.rename_account(account_id, replaced):
        with contextlib.suppress(GameNotFound):
            lobby.rename_account(game_id, account_id, replaced)
    return replaced
