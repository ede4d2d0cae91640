-- Removes schedule `id` from the definitions, the fire state and the due index (KEYS[1..4], as in
-- delete-5.lua and advance.lua), and from its agent's index `agentKey`.
local function removeSchedule(id, agentKey)
  redis.call('HDEL', KEYS[1], id)
  redis.call('HDEL', KEYS[2], id)
  redis.call('HDEL', KEYS[3], id)
  redis.call('ZREM', KEYS[4], id)
  redis.call('ZREM', agentKey, id)
end
