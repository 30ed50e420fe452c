-- The quick-pairing queue (service/store/pairing.py), one action per call:
--
--   join  KEYS: due, matching, the seek, its queue, the account's pointer (or due again
--         for a seeker without an account); ARGV: "join", base, seek id, players,
--         game id (used if this join completes a match), ttl ms, joined ms, fill ms,
--         then the seek's fields as name, value pairs.
--         -> {"held", seek} | {"matched", game} | {"waiting"}
--   fill  KEYS: due, matching; ARGV: "fill", base, now ms, game id, ttl ms: the seek
--         due first is matched with the oldest others of its queue (bots fill the rest).
--         -> {} (none due) | {"matched", game} | {"gone", seek}
--   leave KEYS: due, matching; ARGV: "leave", base, seek id
--         -> {"left"} | {<its status>} | {"gone"}
--
-- Every key shares the {pairing} hash tag (KeySpace.pairing), so the keys a seek
-- names (its queue, the other seeks) are in the declared keys' slot.

local action, base = ARGV[1], ARGV[2]

local function seek_key(id)
  return base .. ':seek:' .. id
end

-- Up to players waiting seeks of queue, first included, oldest first; seeks whose
-- hash is gone (expired) are dropped from the queue on the way.
local function gather(queue, players, first)
  local members = {first}
  for _, other in ipairs(redis.call('ZRANGE', queue, 0, -1)) do
    if #members >= players then
      break
    end
    if other ~= first then
      if redis.call('EXISTS', seek_key(other)) == 1 then
        table.insert(members, other)
      else
        redis.call('ZREM', queue, other)
        redis.call('ZREM', KEYS[1], other)
      end
    end
  end
  return members
end

-- The members, in the order they joined, become one game: each seek learns its seat.
local function match(queue, members, game, now, ttl, level)
  local joined = {}
  for _, id in ipairs(members) do
    joined[id] = tonumber(redis.call('ZSCORE', queue, id)) or now
  end
  table.sort(members, function(a, b)
    if joined[a] ~= joined[b] then
      return joined[a] < joined[b]
    end
    return a < b
  end)
  for index, id in ipairs(members) do
    redis.call('ZREM', queue, id)
    redis.call('ZREM', KEYS[1], id)
    redis.call('HSET', seek_key(id), 'status', 'matched', 'game', game,
      'seat', 'p' .. index, 'matched_ms', now)
  end
  local key = base .. ':match:' .. game
  redis.call('HSET', key, 'members', cjson.encode(members), 'level', level, 'at', now)
  redis.call('PEXPIRE', key, ttl)
  redis.call('ZADD', KEYS[2], now, game)
end

if action == 'join' then
  local id, players, game = ARGV[3], tonumber(ARGV[4]), ARGV[5]
  local ttl, joined, fill = tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8])
  if KEYS[5] ~= KEYS[1] then
    local held = redis.call('GET', KEYS[5])
    if held then
      local status = redis.call('HGET', seek_key(held), 'status')
      if status == 'waiting' or status == 'matched' then
        return {'held', held}
      end
    end
    redis.call('SET', KEYS[5], id, 'PX', ttl)
  end
  redis.call('HSET', KEYS[3], 'status', 'waiting', unpack(ARGV, 9))
  redis.call('PEXPIRE', KEYS[3], ttl)
  redis.call('ZADD', KEYS[4], joined, id)
  redis.call('ZADD', KEYS[1], fill, id)
  local members = gather(KEYS[4], players, id)
  if #members >= players then
    match(KEYS[4], members, game, joined, ttl, '')
    return {'matched', game}
  end
  return {'waiting'}
end

if action == 'fill' then
  local now, game, ttl = tonumber(ARGV[3]), ARGV[4], tonumber(ARGV[5])
  local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, 1)
  if #due == 0 then
    return {}
  end
  local id = due[1]
  local fields = redis.call('HMGET', seek_key(id), 'queue', 'players', 'level', 'status')
  if not fields[1] or fields[4] ~= 'waiting' then
    redis.call('ZREM', KEYS[1], id)
    return {'gone', id}
  end
  local members = gather(fields[1], tonumber(fields[2]), id)
  match(fields[1], members, game, now, ttl, fields[3])
  return {'matched', game}
end

if action == 'leave' then
  local id = ARGV[3]
  local key = seek_key(id)
  local fields = redis.call('HMGET', key, 'status', 'queue', 'account')
  if not fields[1] then
    return {'gone'}
  end
  if fields[1] ~= 'waiting' then
    return {fields[1]}
  end
  redis.call('ZREM', fields[2], id)
  redis.call('ZREM', KEYS[1], id)
  redis.call('HSET', key, 'status', 'left')
  if fields[3] and fields[3] ~= '' then
    local pointer = base .. ':account:' .. fields[3]
    if redis.call('GET', pointer) == id then
      redis.call('DEL', pointer)
    end
  end
  return {'left'}
end

return redis.error_reply('unknown pairing action ' .. tostring(action))
