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
--- @include "includes/server-time"
--- @include "includes/lease"

local now = serverTimeMs()
local expiry = now + tonumber(ARGV[2])
local out = { now }
local extended = {}
for i = 3, #ARGV, 2 do
  local id = ARGV[i]
  local answer = leaseCheck(readRecord(ARGV[1] .. id), ARGV[i + 1])
  if answer == 'ok' then
    extended[#extended + 1] = expiry
    extended[#extended + 1] = id
  end
  out[#out + 1] = answer
end
if #extended > 0 then redis.call('ZADD', KEYS[1], unpack(extended)) end
return out
