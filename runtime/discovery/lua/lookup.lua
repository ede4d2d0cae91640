--[[
  What each registration that is a member of every given index set is at (one set: its members):
  its id, last beat and the digest of its record, not the record. A reader that already parsed a
  record with that digest keeps it, and fetches only the records it does not know (records.lua), so
  a catalog refresh over thousands of unchanged registrations moves ids and digests, not megabytes.
  Never KEYS or SCAN: the index sets are the catalog.

  Input:
    KEYS[1..n]   index sets, intersected (manifold:v1:{<ns>}:registry:index:…)

    ARGV[1]      the record key prefix, manifold:v1:{<ns>}:registry:component: (same hash tag as KEYS)

  Output:
    { server time in ms (decimal string), id, last_seen ms, digest, id, last_seen ms, digest, … }
    (digest is nil for a record written before records carried one: the reader fetches it)

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
  local fields = redis.call('HMGET', ARGV[1] .. id, 'last_seen', 'digest')
  if fields[1] then
    out[#out + 1] = id
    out[#out + 1] = fields[1]
    out[#out + 1] = fields[2]
  else
    for i = 1, #KEYS do redis.call('SREM', KEYS[i], id) end
  end
end
return out
