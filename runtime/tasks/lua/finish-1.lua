--[[
  Finishes leased tasks: running → completed (with a result) or running → failed (with an error),
  each only for its lease holder. Several tasks per call, so a worker pool pays one round trip for a
  batch.

  Input:
    KEYS[1]      the leases (sorted set, id scored by expiry ms)

    ARGV[1]      the record key prefix, manifold:v1:<ns>:{tasks:<queue>}:task: (same hash tag as KEYS)
    ARGV[2]      TTL in ms of a finished record
    ARGV[3..]    quadruples: task id, lease token, 'completed' | 'failed', result JSON ('' for none) | error JSON

  Output:
    per quadruple 'ok' | 'lost' | 'cancelled' (a cancelled task is never overwritten)
]]
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local ttl = tonumber(ARGV[2])
local out = {}
local done = {}
for i = 3, #ARGV, 4 do
  local id = ARGV[i]
  local key = ARGV[1] .. id
  local record = redis.call('GET', key)
  local status, deliveries, token, created, started, progress, fixed
  if record then
    status, deliveries, token, created, started, progress, fixed =
      string.match(record, '^(%a+)|(%d+)|([^|]*)|(%d*)|(%d*)|%d*\n([^\n]*)\n[^\n]*\n[^\n]*\n(.*)$')
  end
  if status == 'cancelled' then
    out[#out + 1] = 'cancelled'
  elseif status == 'running' and token == ARGV[i + 1] then
    local head = ARGV[i + 2] .. '|' .. deliveries .. '||' .. created .. '|' .. started .. '|' .. now .. '\n' .. progress .. '\n'
    if ARGV[i + 2] == 'completed' then
      redis.call('SET', key, head .. '\n' .. ARGV[i + 3] .. '\n' .. fixed, 'PX', ttl)
    else
      redis.call('SET', key, head .. ARGV[i + 3] .. '\n\n' .. fixed, 'PX', ttl)
    end
    done[#done + 1] = id
    out[#out + 1] = 'ok'
  else
    out[#out + 1] = 'lost'
  end
end
if #done > 0 then redis.call('ZREM', KEYS[1], unpack(done)) end
return out
