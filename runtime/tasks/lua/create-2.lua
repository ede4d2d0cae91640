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
local head = 'queued|0||' .. string.format('%d', now) .. '||\n\n\n\n'
local n = math.floor((#ARGV - 1) / 2) -- pairs from ARGV[2]
-- Tables made at their full size by a constructor (a table grown by appends is rehashed at every
-- power of two): copies of ARGV, overwritten by index.
local EMPTY = {}
local out = { unpack(ARGV, 1, n + 1) }
out[1] = now
local queued = { unpack(ARGV, 1, n) }
local q = 0

-- The common case, fresh ids all distinct: one MSETNX for the batch. It sets all or nothing, so if any
-- id exists (or one repeats within the batch, which MSETNX would write twice), each goes on its own.
local entries, seen, distinct = { unpack(EMPTY, 1, 2 * n) }, {}, true
for j = 1, n do
  local key = ARGV[1] .. ARGV[2 * j]
  if seen[key] then distinct = false end
  seen[key] = true
  entries[2 * j - 1] = key
  entries[2 * j] = head .. ARGV[2 * j + 1]
end
if distinct and n > 0 and redis.call('MSETNX', unpack(entries, 1, 2 * n)) == 1 then
  for j = 1, n do
    queued[j] = ARGV[2 * j]
    out[j + 1] = 1
  end
  q = n
else
  for j = 1, n do
    if redis.call('SET', entries[2 * j - 1], entries[2 * j], 'NX') then
      q = q + 1
      queued[q] = ARGV[2 * j]
      out[j + 1] = 1
    else
      out[j + 1] = 0
    end
  end
end
if q > 0 then
  redis.call('RPUSH', KEYS[1], unpack(queued, 1, q))
  wakeDequeuer(KEYS[2])
end
return out
