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

  Record format (runtime/tasks/redis-record.ts and includes/task-record.lua): one string,
    <status>|<deliveries>|<token>|<created>|<started>|<finished>\n<progress>\n<error>\n<result>\n<fixed>
  JSON never holds a raw newline, so the five lines are unambiguous. No TTL while queued or running.
]]
--- @include "../../store/lua/includes/server-time"
--- @include "includes/wake"

local now = serverTimeMs()
-- Every field of a new record but its fixed part, as it is stored (see includes/task-record.lua).
local head = 'queued|0||' .. tostring(now) .. '||\n\n\n\n'
local out = { now }
local queued = {}

-- The common case, fresh ids all distinct: one MSETNX for the batch. It sets all or nothing, so if any
-- id exists (or one repeats within the batch, which MSETNX would write twice), each goes on its own.
local entries, seen, distinct = {}, {}, true
for i = 2, #ARGV, 2 do
  local key = ARGV[1] .. ARGV[i]
  if seen[key] then distinct = false end
  seen[key] = true
  entries[#entries + 1] = key
  entries[#entries + 1] = head .. ARGV[i + 1]
end
if distinct and #entries > 0 and redis.call('MSETNX', unpack(entries)) == 1 then
  for i = 2, #ARGV, 2 do
    queued[#queued + 1] = ARGV[i]
    out[#out + 1] = 1
  end
else
  for i = 2, #ARGV, 2 do
    if redis.call('SET', entries[i - 1], entries[i], 'NX') then
      queued[#queued + 1] = ARGV[i]
      out[#out + 1] = 1
    else
      out[#out + 1] = 0
    end
  end
end
if #queued > 0 then
  redis.call('RPUSH', KEYS[1], unpack(queued))
  wakeDequeuer(KEYS[2])
end
return out
