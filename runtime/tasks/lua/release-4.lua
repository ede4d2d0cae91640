--[[
  Puts a running task back at the head of the queue (graceful shutdown of its worker): it is
  delivered again, and this delivery is not counted against the redelivery budget.

  Input:
    KEYS[1]      the record, manifold:v1:<ns>:{tasks:<queue>}:task:<id>
    KEYS[2]      the leases (sorted set)
    KEYS[3]      the queue (list of ids)
    KEYS[4]      the wake list

    ARGV[1]      the task id
    ARGV[2]      lease token

  Output:
    'ok' | 'lost' | 'cancelled'

  This is the one status change outside TASK_TRANSITIONS (running → queued), made only by the lease
  holder. started_at keeps the first start.
]]
local record = redis.call('GET', KEYS[1])
if not record then return 'lost' end
local status, deliveries, token, times, rest = string.match(record, '^(%a+)|(%d+)|([^|]*)|([^\n]*)\n(.*)$')
if status == 'cancelled' then return 'cancelled' end
if status ~= 'running' or token ~= ARGV[2] then return 'lost' end
redis.call('SET', KEYS[1], 'queued|' .. (tonumber(deliveries) - 1) .. '||' .. times .. '\n' .. rest)
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('LPUSH', KEYS[3], ARGV[1])
if redis.call('LLEN', KEYS[4]) == 0 then redis.call('RPUSH', KEYS[4], '1') end
return 'ok'
