--[[
  The registrations that are members of every given index set (one set: its members). Never KEYS
  or SCAN: the index sets are the catalog.

  Input:
    KEYS[1..n]   index sets, intersected (manifold:v1:{<ns>}:registry:index:…)

    ARGV[1]      the record key prefix, manifold:v1:{<ns>}:registry:component: (same hash tag as KEYS)

  Output:
    { server time in ms (decimal string), record JSON, last_seen ms, record JSON, last_seen ms, … }

  A member whose record has expired is removed from every set in KEYS and not returned: stale index
  entries are cleaned as reads meet them.
]]
local time = redis.call('TIME')
-- Milliseconds as a decimal string: exact, whatever Lua's number formatting does.
local now = time[1] .. string.format('%03d', math.floor(tonumber(time[2]) / 1000))

local ids
if #KEYS == 1 then
  ids = redis.call('SMEMBERS', KEYS[1])
else
  ids = redis.call('SINTER', unpack(KEYS))
end

local out = { now }
for _, id in ipairs(ids) do
  local fields = redis.call('HMGET', ARGV[1] .. id, 'record', 'last_seen')
  if fields[1] then
    out[#out + 1] = fields[1]
    out[#out + 1] = fields[2]
  else
    for i = 1, #KEYS do redis.call('SREM', KEYS[i], id) end
  end
end
return out
