--[[
  Include: the one write path of a status change, after the including script's checks. Sets the
  status (and the fields the change writes), moves the list member between per-status indexes,
  takes the id out of the expiry index when it leaves pending, and restarts retention: the record's
  TTL and its purge entry, both retention ms from now on the server's clock.

  Input:
    KEYS[1..n]   not read (the function takes its keys as arguments)

  Output:
    defines moveTo(key, id, from, to, fields, expiryKey, purgeKey, statusPrefix, retentionMs) → the
    record after the change (HGETALL's flat array); `fields` is a flat Lua list: field, value, …
]]
--- @include "../../../../store/lua/includes/server-time"

local function moveTo(key, id, from, to, fields, expiryKey, purgeKey, statusPrefix, retentionMs)
  local member = redis.call('HGET', key, 'member')
  redis.call('HSET', key, 'status', to, unpack(fields))
  if from == 'pending' then redis.call('ZREM', expiryKey, id) end
  redis.call('ZREM', statusPrefix .. from, member)
  redis.call('ZADD', statusPrefix .. to, 0, member)
  redis.call('PEXPIRE', key, retentionMs)
  redis.call('ZADD', purgeKey, serverTimeMs() + retentionMs, member)
  return redis.call('HGETALL', key)
end
