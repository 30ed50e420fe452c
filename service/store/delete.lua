-- Delete one game: its events, meta, seed, snapshot and index entry.
--
-- KEYS: 1 events, 2 meta, 3 seed, 4 snapshot, 5 partition game index
-- ARGV: 1 game id
-- Reply: the number of keys removed (0 if there was no game).
--
-- Idempotency records are left to expire: they name the deleted game's
-- epoch, so a new game with the same id never replays them.

local removed = redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4])
redis.call('ZREM', KEYS[5], ARGV[1])
return removed
