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
--- @include "includes/lease"
--- @include "includes/wake"

local record = readRecord(KEYS[1])
local answer = leaseCheck(record, ARGV[2])
if answer ~= 'ok' then return answer end
record.status = 'queued'
record.deliveries = tostring(tonumber(record.deliveries) - 1)
record.token = ''
redis.call('SET', KEYS[1], withHeader(record))
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('LPUSH', KEYS[3], ARGV[1])
wakeDequeuer(KEYS[4])
return 'ok'
