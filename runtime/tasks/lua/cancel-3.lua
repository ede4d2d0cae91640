--[[
  Cancels a queued or running task: status cancelled, error TASK_CANCELLED, TTL started. A queued
  task's id stays in the queue (removing it would be O(queue length)); the skip counter says how many
  such ids the queue holds, and a dequeue that meets one drops it.

  Input:
    KEYS[1]      the record, manifold:v1:<ns>:{tasks:<queue>}:task:<id>
    KEYS[2]      the leases (sorted set)
    KEYS[3]      the skip counter

    ARGV[1]      the task id
    ARGV[2]      TTL in ms of a finished record
    ARGV[3]      error JSON (TASK_CANCELLED)

  Output:
    { 'cancelled', record after } | { 'finished', record unchanged } | { 'not_found' }
]]
local record = redis.call('GET', KEYS[1])
if not record then return { 'not_found' } end
local status, deliveries, created, started, progress, result, fixed =
  string.match(record, '^(%a+)|(%d+)|[^|]*|(%d*)|(%d*)|%d*\n([^\n]*)\n[^\n]*\n([^\n]*)\n(.*)$')
if not status then return { 'not_found' } end -- a value that is not a task record (written by hand)
if status == 'queued' then
  redis.call('INCR', KEYS[3])
elseif status == 'running' then
  redis.call('ZREM', KEYS[2], ARGV[1])
else
  return { 'finished', record }
end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local cancelled = 'cancelled|' .. deliveries .. '||' .. created .. '|' .. started .. '|' .. now .. '\n' .. progress .. '\n' .. ARGV[3] .. '\n' .. result .. '\n' .. fixed
redis.call('SET', KEYS[1], cancelled, 'PX', tonumber(ARGV[2]))
return { 'cancelled', cancelled }
