--[[
  Extends the leases of live tasks (one call for every task a worker process runs).

  Input:
    KEYS[1]      the leases (sorted set, id scored by expiry ms)
    KEYS[2]      the running hash (id → lease state, includes/running-state)

    ARGV[1]      the record key prefix, manifold:v1:<ns>:{tasks:<queue>}:task: (same hash tag as KEYS)
    ARGV[2]      lease length in ms, from now (server time)
    ARGV[3..]    pairs: task id, lease state

  Output:
    { server time ms, then per pair 'ok' | 'lost' | 'cancelled' }

  'lost': the record is gone, finished, or running under another lease (redelivered after this lease
  lapsed). 'cancelled': the worker must abort its handler. A lease that lapsed but was not yet
  reclaimed is still this worker's, and is extended. Records are read only for refused pairs.
]]
--- @include "../../store/lua/includes/server-time"
--- @include "includes/leased-batch"

local now = serverTimeMs()
local expiry = string.format('%d', now + tonumber(ARGV[2]))
local members = {}
local answers = leasedBatch(KEYS[2], 2, function(id)
  members[#members + 1] = expiry
  members[#members + 1] = id
end, { now })
if #members > 0 then redis.call('ZADD', KEYS[1], unpack(members)) end
return answers
