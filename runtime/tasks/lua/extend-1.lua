--[[
  Extends the leases of live tasks (one call for every task a worker process runs).

  Input:
    KEYS[1]      the leases (sorted set, id scored by expiry ms)

    ARGV[1]      the record key prefix, manifold:v1:<ns>:{tasks:<queue>}:task: (same hash tag as KEYS)
    ARGV[2]      lease length in ms, from now (server time)
    ARGV[3..]    pairs: task id, lease token

  Output:
    { server time ms, then per pair 'ok' | 'lost' | 'cancelled' }

  'lost': the record is gone, finished, or running under another token (redelivered after this lease
  lapsed). 'cancelled': the worker must abort its handler. A lease that lapsed but was not yet
  reclaimed is still this worker's, and is extended.
]]
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local expiry = now + tonumber(ARGV[2])
local out = { now }
local extended = {}
for i = 3, #ARGV, 2 do
  local id = ARGV[i]
  local record = redis.call('GET', ARGV[1] .. id)
  local status, token
  if record then status, token = string.match(record, '^(%a+)|%d+|([^|]*)|') end
  if status == 'cancelled' then
    out[#out + 1] = 'cancelled'
  elseif status == 'running' and token == ARGV[i + 1] then
    extended[#extended + 1] = expiry
    extended[#extended + 1] = id
    out[#out + 1] = 'ok'
  else
    out[#out + 1] = 'lost'
  end
end
if #extended > 0 then redis.call('ZADD', KEYS[1], unpack(extended)) end
return out
