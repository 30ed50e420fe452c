"""The quick-pairing queue's sweep and the challenges' expiry (issue 49), as RQ jobs.

The relay looks at the pairing queue every round (``Relay.sweep_pairing``: one
Redis read) and enqueues ``fill_pairings`` when a seeker's wait is over or a
match has waited too long for its game; the job matches every seek whose wait
ended (bots of its level fill the seats left) and makes the games of matches
whose maker died (``service.application.pairing``). ``expire_challenges`` runs
with the minute's sweep of games: pending challenges past their expiry are
written down as expired (readers already see them so), and those ended 30
days ago forgotten. Both are safe to run twice: the queue's script and the
conditional updates decide, not the job.
"""

from __future__ import annotations

import logging
import time
from functools import cache

from service import logs
from service.application.accounts import Accounts
from service.application.archived import archive_for
from service.application.challenges import KEEP_ENDED_MS
from service.application.pairing import Pairing
from service.application.quotas import GameQuota
from service.application.storage import StorageBudget
from service.settings import Settings
from service.store.accounts import AccountStore
from service.store.archive import Archive
from service.store.challenges import ChallengeStore
from service.store.pairing import PairingQueue
from service.store.tokens import RevocationCounter, TokenStore
from workers.jobs import job_service, job_store

log = logging.getLogger(__name__)


def fill_pairings() -> str:
    """Match the seeks whose wait is over, and finish matches whose maker died."""
    pairing = _pairing()
    with logs.context(game_id=None):
        made, recovered = pairing.fill_due(), pairing.recover()
        log.info("fill_pairings: %d made, %d recovered", made, recovered)
    return f"made={made} recovered={recovered}"


def expire_challenges() -> str:
    """Write down the expired challenges; forget those ended 30 days ago."""
    store = ChallengeStore(_database().engine, migrate_first=_database().migrated_now)
    now = int(time.time() * 1000)
    with logs.context(game_id=None):
        expired, purged = store.expire(now), store.purge(now - KEEP_ENDED_MS)
        log.info("expire_challenges: %d expired, %d forgotten", expired, purged)
    return f"expired={expired} forgotten={purged}"


def _database() -> Archive:
    """The process's SQL database (accounts, challenges), one small pool."""
    return _database_at(Settings.from_env().database_url)


@cache
def _database_at(url: str) -> Archive:
    return archive_for(Settings.from_env(database_url=url), pool_size=1)


def _pairing() -> Pairing:
    """The pairing service on the job's game store (one per key prefix and process)."""
    service = job_service()
    return _pairing_for(service.keys.prefix, Settings.from_env().database_url)


@cache
def _pairing_for(prefix: str, database_url: str) -> Pairing:
    """(``prefix`` and ``database_url`` key the cache: one service for each.)"""
    settings = Settings.from_env()
    service, store = job_service(), job_store()
    database = _database()
    accounts = Accounts(
        AccountStore(database.engine, migrate_first=database.migrated_now),
        TokenStore(database.engine, migrate_first=database.migrated_now),
        RevocationCounter(store, service.keys),
    )
    quotas = GameQuota(
        store,
        service.keys,
        service.lobby,
        service.log,
        open_seconds=settings.open_game_hours * 3600,
        idle_seconds=settings.idle_game_hours * 3600,
        abandon=service.abandon,
    )
    storage = StorageBudget(
        store,
        service.keys,
        horizon_seconds=settings.retention_horizon_seconds,
        memory_percent=settings.create_memory_percent,
    )
    return Pairing(
        PairingQueue(store, service.keys),
        service,
        accounts,
        quotas,
        storage,
        games_per_account=settings.games_per_token,
        games_per_address=settings.games_per_address,
        stored_per_account=settings.stored_games_per_token,
        stored_per_address=settings.stored_games_per_address,
    )
