--[[
  Puts a running task back at the head of the queue (graceful shutdown of its worker): it is
  delivered again, and this delivery is not counted against the redelivery budget.

  Input:
    KEYS[1]      the record, manifold:v1:<ns>:{tasks:<queue>}:task:<id>
    KEYS[2]      the leases (sorted set)
    KEYS[3]      the queue (list of ids)
    KEYS[4]      the wake list
    KEYS[5]      the running hash (id → lease state, includes/running-state)

    ARGV[1]      the task id
    ARGV[2]      lease state

  Output:
    'ok' | 'lost' | 'cancelled'

  This is the one status change outside TASK_TRANSITIONS (running → queued), made only by the lease
  holder. The record's header takes the lease's deliveries less this one and its first start, which
  the next dequeue carries on (started_at keeps the first start).
]]
--- @include "includes/running-state"
--- @include "includes/wake"

local state = redis.call('HGET', KEYS[5], ARGV[1])
if not holds(state, ARGV[2]) then return refusal(KEYS[1]) end
local record = readRecord(KEYS[1])
redis.call('HDEL', KEYS[5], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
if not record then return 'lost' end
local fields = stateFields(state)
record.status = 'queued'
record.deliveries = tostring(tonumber(fields.deliveries) - 1)
record.started = fields.started
record.token = ''
redis.call('SET', KEYS[1], withHeader(record))
redis.call('LPUSH', KEYS[3], ARGV[1])
wakeDequeuer(KEYS[4])
return 'ok'
