--[[
  Included by delete-5.lua and advance.lua: removeSchedule(id, agentKey) takes schedule `id` out of
  the definitions, the fire state and the due index, and out of its agent's index `agentKey`.

  Input:
    KEYS[1..n]   the including script's: KEYS[1] definitions, KEYS[2] fire counts, KEYS[3] last
                 fire times, KEYS[4] the due index
    ARGV[1..n]   not read (the function takes its arguments)

  Output:
    none (a function definition)
]]
local function removeSchedule(id, agentKey)
  redis.call('HDEL', KEYS[1], id)
  redis.call('HDEL', KEYS[2], id)
  redis.call('HDEL', KEYS[3], id)
  redis.call('ZREM', KEYS[4], id)
  redis.call('ZREM', agentKey, id)
end
