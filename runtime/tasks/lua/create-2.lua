--[[
  Stores new tasks as queued and appends them to the queue in the order given; leaves a wake-up for
  a blocked dequeuer. Several tasks per call: creates made in one event-loop turn travel together.

  Input:
    KEYS[1]      the queue (a list of ids, head first)
    KEYS[2]      the wake list (at most a marker or two; blocked dequeuers BLPOP it)

    ARGV[1]      the record key prefix, manifold:v1:<ns>:{tasks:<queue>}:task: (same hash tag as KEYS)
    ARGV[2..]    pairs: task id, the record's fixed part (JSON {type, timeout_ms, trace?, input})

  Output:
    { server time in ms (every task's created_at), then per pair 1 (created) or 0 (the id exists: TASK_EXISTS) }

  Record format (runtime/tasks/redis-record.ts, read and written by includes/task-record.lua): one string,
    <status>|<deliveries>|<token>|<created>|<started>|<finished>\n<progress>\n<error>\n<result>\n<fixed>
  JSON never holds a raw newline, so the five lines are unambiguous. No TTL while queued or running.
]]
--- @include "../../store/lua/includes/server-time"
--- @include "includes/task-record"
--- @include "includes/wake"

local now = serverTimeMs()
local fresh = { status = 'queued', deliveries = 0, token = '', created = now, started = '', finished = '', progress = '', error = '', result = '' }
local out = { now }
local queued = {}
for i = 2, #ARGV, 2 do
  fresh.fixed = ARGV[i + 1]
  if redis.call('SET', ARGV[1] .. ARGV[i], encodeRecord(fresh), 'NX') then
    queued[#queued + 1] = ARGV[i]
    out[#out + 1] = 1
  else
    out[#out + 1] = 0
  end
end
if #queued > 0 then
  redis.call('RPUSH', KEYS[1], unpack(queued))
  wakeDequeuer(KEYS[2])
end
return out
