-- Append a batch of events to one game, atomically and idempotently.
--
-- KEYS: 1 events stream, 2 meta hash, 3 idempotency record, 4 partition outbox
--       stream, and for the first append only: 5 seed, 6 partition game index
-- ARGV: 1 game id, 2 expected version, 3 prev hash (32 bytes),
--       4 request fingerprint, 5 idempotency TTL in ms (0: keep no record),
--       6 seed ('' for none), 7 notification kind ('' for none),
--       8 outbox MAXLEN ~ (0: no trimming),
--       9.. version, payload, hash, version, payload, hash, ...
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
--
-- Why it is written this way (each costs instructions inside Redis, counted
-- with callgrind, see docs/store.md): the caller sends every event's version
-- as a string, since turning a Lua number into a string is a printf; the
-- version is compared as the string the meta hash holds; the idempotency
-- record is one string with PX (one call to write, one to read) where it
-- was a hash and a PEXPIRE; the seed and game index keys travel only with
-- the first append, since every argument costs as much as a small command.

local FIXED = 8
local find = string.find

local function integer(text)  -- a non-negative integer as Redis parses one
  return text == '0' or find(text, '^[1-9]%d*$')
end

-- 1. validate everything
local n = #ARGV
if n < FIXED + 3 or (n - FIXED) % 3 ~= 0 then
  return {'malformed', 'the batch must hold one or more version/payload/hash triples'}
end
if not (integer(ARGV[2]) and integer(ARGV[5]) and integer(ARGV[8])) then
  return {'malformed', 'arguments 2, 5 and 8 must be non-negative integers'}
end
if #ARGV[3] ~= 32 then return {'malformed', 'prev must be a 32-byte hash'} end
if #ARGV[4] == 0 then return {'malformed', 'the request fingerprint is empty'} end
local expected = ARGV[2]
local creating = expected == '0'
if ARGV[6] ~= '' and not creating then
  return {'malformed', 'a seed is only stored by the first append'}
end
if #KEYS ~= (creating and 6 or 4) then
  return {'malformed', 'the first append names 6 keys, every other one 4'}
end
local next_version = tonumber(expected) + 1
for i = FIXED + 1, n, 3 do
  if not find(ARGV[i], '^[1-9]%d*$') or tonumber(ARGV[i]) ~= next_version then
    return {'malformed', 'event ' .. (i - FIXED + 2) / 3 .. ' needs the next version'}
  end
  if #ARGV[i + 1] == 0 or #ARGV[i + 2] ~= 32 then
    return {'malformed', 'event ' .. (i - FIXED + 2) / 3 .. ' needs a payload and a 32-byte hash'}
  end
  next_version = next_version + 1
end

-- 2. read the stored state
local meta = redis.call('HMGET', KEYS[2], 'v', 'h', 'e')
local version = meta[1] or '0'
local epoch = meta[3] or ''
local ttl = ARGV[5]
local keep = ttl ~= '0'

-- 3. idempotency first: a retry must succeed even though the version moved.
-- A record from an earlier game with the same id (deleted since) carries an
-- older epoch and is ignored. The record is head hash (32 bytes), then
-- 'epoch first last fingerprint'; a record written before that format is a
-- hash (fields r, e, f, l, h), read as such.
if keep then
  local rec = redis.pcall('GET', KEYS[3])
  if type(rec) == 'table' then  -- an older record: a hash
    rec = redis.call('HMGET', KEYS[3], 'r', 'e', 'f', 'l', 'h')
    if rec[1] and rec[2] == epoch then
      if rec[1] == ARGV[4] then return {'ok', rec[3], rec[4], rec[5], 1} end
      return {'idempotency'}
    end
  elseif rec then
    local e, f, l, fingerprint = string.match(rec, '^(%S+) (%d+) (%d+) (.*)$', 33)
    if e == epoch then
      if fingerprint == ARGV[4] then
        return {'ok', tonumber(f), tonumber(l), string.sub(rec, 1, 32), 1}
      end
      return {'idempotency'}
    end
  end
end

-- 4. optimistic concurrency, then the chain link
if expected ~= version then return {'conflict', tonumber(version)} end
local head = meta[2] or string.rep('\0', 32)
if ARGV[3] ~= head then return {'chain', head} end

-- 5. write
local first = ARGV[FIXED + 1]
for i = FIXED + 1, n, 3 do
  redis.call('XADD', KEYS[1], ARGV[i] .. '-0', 'p', ARGV[i + 1], 'h', ARGV[i + 2])
end
local last, last_hash = ARGV[n - 2], ARGV[n]
local note_id
if ARGV[8] == '0' and ARGV[7] == '' then
  note_id = redis.call('XADD', KEYS[4], '*', 'g', ARGV[1], 'f', first, 'l', last)
elseif ARGV[8] == '0' then
  note_id = redis.call('XADD', KEYS[4], '*', 'g', ARGV[1], 'f', first, 'l', last, 'k', ARGV[7])
elseif ARGV[7] == '' then
  note_id = redis.call('XADD', KEYS[4], 'MAXLEN', '~', ARGV[8], '*',
    'g', ARGV[1], 'f', first, 'l', last)
else
  note_id = redis.call('XADD', KEYS[4], 'MAXLEN', '~', ARGV[8], '*',
    'g', ARGV[1], 'f', first, 'l', last, 'k', ARGV[7])
end
if creating then
  -- The creating notification's id is unique in the partition: it is the
  -- game's epoch, and its millisecond part is the creation time.
  epoch = note_id
  redis.call('ZADD', KEYS[6], tonumber(string.match(note_id, '^(%d+)')), ARGV[1])
  if ARGV[6] ~= '' then redis.call('SET', KEYS[5], ARGV[6]) end
  redis.call('HSET', KEYS[2], 'v', last, 'h', last_hash, 'e', epoch)
else
  redis.call('HSET', KEYS[2], 'v', last, 'h', last_hash)
end
if keep then
  redis.call('SET', KEYS[3], last_hash .. epoch .. ' ' .. first .. ' ' .. last .. ' ' .. ARGV[4],
    'PX', ttl)
end
return {'ok', tonumber(first), tonumber(last), last_hash, 0}
