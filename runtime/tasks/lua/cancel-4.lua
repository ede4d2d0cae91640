--[[
  Cancels a queued or running task: status cancelled, error TASK_CANCELLED, TTL started. A queued
  task's id stays in the queue (removing it would be O(queue length)); the skip counter says how many
  such ids the queue holds, and a dequeue that meets one drops it.

  Input:
    KEYS[1]      the record, manifold:v1:<ns>:{tasks:<queue>}:task:<id>
    KEYS[2]      the leases (sorted set)
    KEYS[3]      the skip counter
    KEYS[4]      the running hash (id → lease state, includes/running-state)

    ARGV[1]      the task id
    ARGV[2]      TTL in ms of a finished record
    ARGV[3]      error JSON (TASK_CANCELLED)

  Output:
    { 'cancelled', record after } | { 'finished', record unchanged } | { 'not_found' }
]]
--- @include "../../store/lua/includes/server-time"
--- @include "includes/running-state"
--- @include "includes/finish-record"

local record = readRecord(KEYS[1])
if not record then return { 'not_found' } end -- no key, or a value that is not a task record (written by hand)
local state = redis.call('HGET', KEYS[4], ARGV[1])
if state then
  -- Running: its lease ends here, so it is never redelivered.
  asRunning(record, state)
  redis.call('HDEL', KEYS[4], ARGV[1])
  redis.call('ZREM', KEYS[2], ARGV[1])
elseif record.status == 'queued' then
  redis.call('INCR', KEYS[3])
elseif record.status == 'running' then
  redis.call('ZREM', KEYS[2], ARGV[1]) -- a record written by the previous layout, its lease in its header
else
  return { 'finished', record.value }
end
return { 'cancelled', finishRecord(KEYS[1], record, 'cancelled', tostring(serverTimeMs()), ARGV[2], ARGV[3], resultLine(record)) }
