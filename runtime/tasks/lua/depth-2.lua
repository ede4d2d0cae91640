--[[
  How many tasks wait in the queue: its length minus the ids of tasks cancelled while queued.

  Input:
    KEYS[1]      the queue (list of ids)
    KEYS[2]      the skip counter

  Output:
    the number of queued tasks
]]
local depth = redis.call('LLEN', KEYS[1]) - tonumber(redis.call('GET', KEYS[2]) or '0')
if depth < 0 then return 0 end
return depth
