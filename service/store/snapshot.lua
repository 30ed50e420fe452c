-- Store a snapshot unless a newer one with the same stamp is already there.
--
-- KEYS: 1 snapshot hash, 2 game meta hash
-- ARGV: 1 version, 2 stamp, 3 data
-- Reply: 1 stored, 0 kept the existing newer or equal snapshot,
--        -1 no such game, -2 version is above the game's version,
--        -3 version is not a positive integer.
--
-- A snapshot with another stamp (older or newer rules/codec) is replaced
-- whatever its version: it is useless to the code writing this one.

if not string.match(ARGV[1], '^[1-9]%d*$') then return -3 end
local current = tonumber(redis.call('HGET', KEYS[2], 'v') or '0')
local version = tonumber(ARGV[1])
if current == 0 then return -1 end
if version > current then return -2 end
local stored = redis.call('HMGET', KEYS[1], 'v', 's')
if stored[2] == ARGV[2] and tonumber(stored[1]) >= version then return 0 end
redis.call('HSET', KEYS[1], 'v', ARGV[1], 's', ARGV[2], 'd', ARGV[3])
return 1
