-- Append a batch of events to one game, atomically and idempotently.
--
-- The store puts one line in front of this file, the constants of its
-- configuration (so that they cost no argument): MAXLEN, the outbox's
-- MAXLEN ~ ('0': no trimming), and KEYED_TTL and PRIVATE_TTL, how long an
-- idempotency record lives in ms, for a caller's key and for the store's
-- private one.
--
-- KEYS: 1 events stream, 2 meta hash, 3 partition outbox stream, then for the
--       first append only: 4 partition game index and, if it stores one, 5
--       the seed, then for modes 'k' and 'p' only: the idempotency record
-- ARGV: 1 prev hash (32 bytes), the record mode (one byte), and in modes 'k'
--       and 'p' the request fingerprint; 2 game id, a space and the
--       notification kind (may be empty); 3.. version, then hash (32 bytes)
--       and payload as one string, ..., and after them, on a first append
--       that stores one, the seed. The first event's version is the expected
--       version plus one. An entry keeps hash and payload as they came, in
--       one field, e (entries written before hold two, p and h).
-- Record modes:
--   'k' a caller's idempotency key: its record is looked up before anything
--       else, and written with the append (KEYED_TTL);
--   'n' none: the store's first send of an append without a caller's key;
--   'r' a re-send of such an append (the connection dropped before the
--       reply): refused by a version conflict, it is a replay if its very
--       events are stored at its versions (the last one's hash commits to
--       them all and to prev), which is what a record would have said;
--   'p' a record under the store's private key, looked up only when the
--       append is refused (a private key is new on every call, so a record
--       under it can only be there if this very call already ran: then the
--       version has moved on), kept PRIVATE_TTL: for a Redis Cluster client,
--       whose own re-sends the store cannot tell from first sends.
--
-- Replies (never an error reply for a refusal, so raw bytes can travel):
--   0                                   appended: the caller knows the versions
--                                       and the head, they are its own batch's
--   {'ok', first, last, head, 1}        an idempotent retry: the original result
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
-- with callgrind, see docs/store.md): every argument costs about as much as
-- a small command, so the configuration is in the source, the seed and game
-- index keys travel only with the first append, and a successful append
-- answers 0 instead of repeating what the caller sent; the caller sends every
-- event's version as a string, since turning a Lua number into a string is a
-- printf; the idempotency record is one string with PX (one call to write,
-- one to read), and a private record is read only on the rare path that
-- needs it. Each ARGV element costs Redis its parsing, a Lua string and a
-- slot in a table grown by doubling, so the expected version is not sent
-- (it is the first event's version less one: one tonumber, a strtod, is
-- cheaper) and the record mode rides on the prev hash (read with byte and a
-- plain find, which make no string); the replay function is a closure, made
-- (and collected) on every run, so it is made only in the modes that need it.
-- An event's hash and payload travel as one argument and are stored as one
-- field: an argument less per event, and two fewer for its XADD to convert.

local ARGV, KEYS, call = ARGV, KEYS, redis.call
local find, sub, byte = string.find, string.sub, string.byte

-- 1. validate everything
local n = #ARGV
local extra = (n - 2) % 2  -- 1: a seed follows the events
local first = ARGV[3]
local creating = first == '1'
if n < 4 then
  return {'malformed', 'the batch must hold one or more version, hash and payload pairs'}
end
if extra == 1 and not creating then
  return {'malformed', 'a seed is only stored by the first append'}
end
local head_arg = ARGV[1]
-- the record mode, as a byte: n 110, r 114, k 107, p 112
local mode = byte(head_arg, 33)
local recorded = #head_arg > 33
if not (mode == 110 or mode == 114) or recorded then
  if not ((mode == 107 or mode == 112) and recorded) then
    return {'malformed', "argument 1 is a 32-byte prev hash, then 'n', 'r', or 'k' or 'p' and a fingerprint"}
  end
end
-- (the seed key comes only with a seed: a lone last argument is one only then)
if #KEYS ~= (creating and 4 + extra or 3) + (recorded and 1 or 0) then
  return {'malformed', 'the first append names 4 keys, 5 with a seed, every other one 3, and a record one more'}
end
if (find(ARGV[2], ' ', 1, true) or 1) < 2 then
  return {'malformed', 'argument 2 is the game id, a space and the kind'}
end
local last_hash_at = n - extra
-- Versions: canonical integers (XADD's parsing of an id would not insist on
-- that), each the one before plus one (tonumber is a strtod: not for the first).
local first_version = tonumber(first)
local next_version = first_version
for i = 3, last_hash_at, 2 do
  if not find(ARGV[i], '^[1-9]%d*$') or (i > 3 and tonumber(ARGV[i]) ~= next_version) then
    return {'malformed', 'event ' .. (i - 1) / 2 .. ' needs the next version'}
  end
  if #ARGV[i + 1] < 33 then
    return {'malformed', 'event ' .. (i - 1) / 2 .. ' needs a 32-byte hash and a payload'}
  end
  next_version = next_version + 1
end
local last, last_hash = ARGV[last_hash_at - 1], sub(ARGV[last_hash_at], 1, 32)

-- 2. read the stored state
-- (the epoch only where a record names it, or a first append writes it)
local meta = recorded and call('HMGET', KEYS[2], 'v', 'h', 'e') or call('HMGET', KEYS[2], 'v', 'h')
local version = meta[1] or '0'
local epoch = meta[3] or ''

-- 3. an earlier run of this request. A record from an earlier game with the
-- same id (deleted since) carries an older epoch and is ignored. The record is
-- head hash (32 bytes), then 'epoch first last fingerprint'; a record written
-- before that format is a hash (fields r, e, f, l, h), read as such.
-- (a closure is made on each run: only for the modes that keep a record)
local replay = recorded and function()
  local key, fingerprint = KEYS[#KEYS], sub(head_arg, 34)
  local rec = redis.pcall('GET', key)
  if type(rec) == 'table' then  -- an older record: a hash
    rec = call('HMGET', key, 'r', 'e', 'f', 'l', 'h')
    if rec[1] and rec[2] == epoch then
      if rec[1] == fingerprint then return {'ok', rec[3], rec[4], rec[5], 1} end
      return {'idempotency'}
    end
  elseif rec then
    local e, f, l, stored = string.match(rec, '^(%S+) (%d+) (%d+) (.*)$', 33)
    if e == epoch then
      if stored == fingerprint then
        return {'ok', tonumber(f), tonumber(l), sub(rec, 1, 32), 1}
      end
      return {'idempotency'}
    end
  end
end

-- A retry must succeed even though the version moved: a caller's key first.
if mode == 107 then  -- 'k'
  local found = replay()
  if found then return found end
end

-- 4. optimistic concurrency, then the chain link
if tonumber(version) + 1 ~= first_version then
  if mode == 112 then  -- 'p'
    local found = replay()
    if found then return found end
  elseif mode == 114 and tonumber(version) >= tonumber(last) then  -- 'r'
    local stored = call('XRANGE', KEYS[1], last .. '-0', last .. '-0')[1]
    -- its hash: the start of field e, or field h of an entry written before
    if stored and sub(stored[2][1] == 'e' and stored[2][2] or stored[2][4], 1, 32) == last_hash then
      return {'ok', tonumber(first), tonumber(last), last_hash, 1}
    end
  end
  return {'conflict', tonumber(version)}
end
-- the chain link: the prev hash that starts argument 1 is the stored head
local head = meta[2] or string.rep('\0', 32)
if find(head_arg, head, 1, true) ~= 1 then return {'chain', head} end

-- 5. write
-- An explicit XADD id without a sequence part is '<version>-0': the version
-- goes as it came, no concatenation.
for i = 3, last_hash_at, 2 do
  call('XADD', KEYS[1], ARGV[i], 'e', ARGV[i + 1])
end
-- One field, 'first last game kind': each field costs the XADD as much as a
-- short command's argument (entries written before hold g, f, l and k).
local note = first .. ' ' .. last .. ' ' .. ARGV[2]
-- The outbox is trimmed (approximately: whole nodes) by a game's first append,
-- by every batch of more than one event, and by a single event whose version
-- ends in 0: three arguments and the trim check less on nine single-event
-- appends in ten. Between two trims a game adds at most nine notifications.
local note_id
if MAXLEN == '0' or not (creating or last_hash_at ~= 4 or byte(last, -1) == 48) then
  note_id = call('XADD', KEYS[3], '*', 'n', note)
else
  note_id = call('XADD', KEYS[3], 'MAXLEN', '~', MAXLEN, '*', 'n', note)
end
if creating then
  -- The creating notification's id is unique in the partition: it is the
  -- game's epoch, and its millisecond part is the creation time.
  epoch = note_id
  call('ZADD', KEYS[4], tonumber(string.match(note_id, '^(%d+)')), string.match(ARGV[2], '^[^ ]+'))
  if extra == 1 then call('SET', KEYS[5], ARGV[n]) end
  call('HSET', KEYS[2], 'v', last, 'h', last_hash, 'e', epoch)
else
  call('HSET', KEYS[2], 'v', last, 'h', last_hash)
end
if recorded then
  call('SET', KEYS[#KEYS],
    last_hash .. epoch .. ' ' .. first .. ' ' .. last .. ' ' .. sub(head_arg, 34),
    'PX', mode == 107 and KEYED_TTL or PRIVATE_TTL)
end
return 0
