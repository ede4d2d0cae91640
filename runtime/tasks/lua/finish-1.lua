--[[
  Finishes leased tasks: running → completed (with a result) or running → failed (with an error),
  each only for its lease holder. Several tasks per call, so a worker pool pays one round trip for a
  batch; the records are read with one MGET, and each is written with its own SET … PX (the TTL).

  Input:
    KEYS[1]      the leases (sorted set, id scored by expiry ms)

    ARGV[1]      the record key prefix, manifold:v1:<ns>:{tasks:<queue>}:task: (same hash tag as KEYS)
    ARGV[2]      TTL in ms of a finished record
    ARGV[3..]    quadruples: task id, lease token, 'completed' | 'failed', result JSON ('' for none) | error JSON

  Output:
    per quadruple 'ok' | 'lost' | 'cancelled' (a cancelled task is never overwritten)
]]
--- @include "../../store/lua/includes/server-time"
--- @include "includes/leased-batch"
--- @include "includes/finish-record"

local nowText = tostring(serverTimeMs())
local ttl = ARGV[2]
local answers, done = leasedBatch(4, function(id, key, record, i)
  -- The outcome fills one line and empties the other: an empty line reads as absent (redis-record.ts).
  if ARGV[i + 2] == 'completed' then
    finishRecord(key, record, 'completed', nowText, ttl, '', ARGV[i + 3])
  else
    finishRecord(key, record, 'failed', nowText, ttl, ARGV[i + 3], '')
  end
end)
if #done > 0 then redis.call('ZREM', KEYS[1], unpack(done)) end
return answers
