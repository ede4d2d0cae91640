--[[
  One registration by id, with the server time to judge its heartbeat by.

  Input:
    KEYS[1]      the record hash, manifold:v1:{<ns>}:registry:component:<id>

  Output:
    { server time in ms (decimal string), record JSON, last_seen ms }, or { server time in ms } when there is none
]]
local time = redis.call('TIME')
-- Milliseconds as a decimal string: exact, whatever Lua's number formatting does.
local now = time[1] .. string.format('%03d', math.floor(tonumber(time[2]) / 1000))
local fields = redis.call('HMGET', KEYS[1], 'record', 'last_seen')
if fields[1] then return { now, fields[1], fields[2] } end
return { now }
