-- Removes schedule `id` from the definitions, the fire state and both indexes (KEYS[1..5] as in
-- delete-5.lua and advance-5.lua).
local function removeSchedule(id)
  redis.call('HDEL', KEYS[1], id)
  redis.call('HDEL', KEYS[2], id)
  redis.call('HDEL', KEYS[3], id)
  redis.call('ZREM', KEYS[4], id)
  redis.call('ZREM', KEYS[5], id)
end
