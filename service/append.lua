-- Append a batch of events to one game, atomically and idempotently.
--
-- KEYS: 1 events stream, 2 meta hash, 3 idempotency record, 4 seed,
--       5 partition outbox stream, 6 partition game index
-- ARGV: 1 game id, 2 expected version, 3 prev hash (32 bytes),
--       4 request fingerprint, 5 idempotency TTL in ms (0: keep no record),
--       6 seed ('' for none), 7 notification kind ('' for none),
--       8 outbox MAXLEN ~ (0: no trimming), 9.. payload, hash, payload, hash, ...
--
-- Replies (never an error reply for a refusal, so raw bytes can travel):
--   {'ok', first, last, head, replayed}   replayed = 1 for an idempotent retry
--   {'conflict', current_version}
--   {'chain', head_hash}
--   {'idempotency'}
--   {'malformed', reason}
--
-- Redis does not roll a script back, so every argument is checked before
-- the first write, and the only write that could still fail (XADD with an
-- id not above the stream's top) is the first one.

local FIXED = 8
local find = string.find

-- 1. validate everything
local n = #ARGV
if n < FIXED + 2 or (n - FIXED) % 2 ~= 0 then
  return {'malformed', 'the batch must hold one or more payload/hash pairs'}
end
if not (find(ARGV[2], '^%d+$') and find(ARGV[5], '^%d+$') and find(ARGV[8], '^%d+$')) then
  return {'malformed', 'arguments 2, 5 and 8 must be non-negative integers'}
end
if #ARGV[3] ~= 32 then return {'malformed', 'prev must be a 32-byte hash'} end
if #ARGV[4] == 0 then return {'malformed', 'the request fingerprint is empty'} end
local expected = tonumber(ARGV[2])
if ARGV[6] ~= '' and expected ~= 0 then
  return {'malformed', 'a seed is only stored by the first append'}
end
for i = FIXED + 1, n, 2 do
  if #ARGV[i] == 0 or #ARGV[i + 1] ~= 32 then
    return {'malformed', 'event ' .. (i - FIXED + 1) / 2 .. ' needs a payload and a 32-byte hash'}
  end
end

-- 2. read the stored state
local meta = redis.call('HMGET', KEYS[2], 'v', 'h', 'e')
local version = tonumber(meta[1]) or 0
local head = meta[2] or string.rep('\0', 32)
local epoch = meta[3] or ''
local ttl = tonumber(ARGV[5])

-- 3. idempotency first: a retry must succeed even though the version moved.
-- A record from an earlier game with the same id (deleted since) carries an
-- older epoch and is ignored.
if ttl > 0 then
  local rec = redis.call('HMGET', KEYS[3], 'r', 'e', 'f', 'l', 'h')
  if rec[1] and rec[2] == epoch then
    if rec[1] == ARGV[4] then return {'ok', rec[3], rec[4], rec[5], 1} end
    return {'idempotency'}
  end
end

-- 4. optimistic concurrency, then the chain link
if expected ~= version then return {'conflict', version} end
if ARGV[3] ~= head then return {'chain', head} end

-- 5. write
local first = version + 1
for i = FIXED + 1, #ARGV, 2 do
  version = version + 1
  redis.call('XADD', KEYS[1], version .. '-0', 'p', ARGV[i], 'h', ARGV[i + 1])
end
local last_hash = ARGV[#ARGV]
local note_id
if ARGV[8] == '0' and ARGV[7] == '' then
  note_id = redis.call('XADD', KEYS[5], '*', 'g', ARGV[1], 'f', first, 'l', version)
elseif ARGV[8] == '0' then
  note_id = redis.call('XADD', KEYS[5], '*', 'g', ARGV[1], 'f', first, 'l', version, 'k', ARGV[7])
elseif ARGV[7] == '' then
  note_id = redis.call('XADD', KEYS[5], 'MAXLEN', '~', ARGV[8], '*',
    'g', ARGV[1], 'f', first, 'l', version)
else
  note_id = redis.call('XADD', KEYS[5], 'MAXLEN', '~', ARGV[8], '*',
    'g', ARGV[1], 'f', first, 'l', version, 'k', ARGV[7])
end
if first == 1 then
  -- The creating notification's id is unique in the partition: it is the
  -- game's epoch, and its millisecond part is the creation time.
  epoch = note_id
  redis.call('ZADD', KEYS[6], tonumber(string.match(note_id, '^(%d+)')), ARGV[1])
  if ARGV[6] ~= '' then redis.call('SET', KEYS[4], ARGV[6]) end
end
redis.call('HSET', KEYS[2], 'v', version, 'h', last_hash, 'e', epoch)
if ttl > 0 then
  redis.call('HSET', KEYS[3], 'r', ARGV[4], 'e', epoch, 'f', first, 'l', version, 'h', last_hash)
  redis.call('PEXPIRE', KEYS[3], ttl)
end
return {'ok', first, version, last_hash, 0}
