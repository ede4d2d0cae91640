--[[
  Finishes leased tasks: running → completed (with a result) or running → failed (with an error),
  each only for its lease holder. Several tasks per call, so a worker pool pays one round trip for a
  batch: the leases are checked with one HMGET, the records are written with one MSET and each
  gets its TTL with its own PEXPIREAT.

  Input:
    KEYS[1]      the leases (sorted set, id scored by expiry ms)
    KEYS[2]      the running hash (id → lease state, includes/running-state)

    ARGV[1]      the record key prefix, manifold:v1:<ns>:{tasks:<queue>}:task: (same hash tag as KEYS)
    ARGV[2]      TTL in ms of a finished record
    ARGV[3..]    quadruples, each one of
                   task id, lease state, 'completed' | 'failed', result JSON ('' for none) | error JSON
                   task id, lease state, the finished record up to its finished time, the rest of it
                 The second form is sent by the worker that dequeued the task, which holds the record
                 its dequeue returned: '<status>|<deliveries>||<created>|<started>|' and, from the end
                 of the header on, '\n<progress>\n<error>\n<result>\n<fixed>' (it starts with a newline,
                 which JSON never does). While the lease holds, nothing but the holder's progress
                 changes a running record, and progress marks the lease (includes/running-state): so
                 an unmarked lease's record is written as sent, with the server's time between the
                 parts, and read by nobody. A marked lease's record, or one sent in the first form, is
                 read (one MGET for them) and built from slices of the stored one (includes/finish-record).
                 An empty lease state or third value stands for the previous quadruple's (the tasks of
                 one dequeue share a state, and mostly a header): Redis makes a Lua string of every
                 argument, hashing it byte by byte, so the repeats are not sent.

  Output:
    per quadruple 'ok' | 'lost' | 'cancelled' (a cancelled task is never overwritten)

  The loops are written out rather than shared with extend (includes/leased-batch): a closure call and
  the tables it fills cost more per task than the rest of the check. Redis hashes every string a
  script makes, byte by byte, so the script makes few: a key and the finished value per task.
]]
--- @include "../../store/lua/includes/server-time"
--- @include "includes/running-state"
--- @include "includes/finish-record"

local now = serverTimeMs()
-- '%d', not tostring: a number's tostring is a '%.14g' sprintf, several times the cost.
local nowText = string.format('%d', now)
local prefix = ARGV[1]
local ttl = ARGV[2]
local n = math.floor((#ARGV + 1) / 4) -- quadruples from ARGV[3]
if n < 1 then return {} end
-- Tables made at their full size by a constructor (no rehash as they grow): copies of ARGV, overwritten.
local ids = { unpack(ARGV, 1, n) }
for j = 1, n do ids[j] = ARGV[4 * j - 1] end
local held = redis.call('HMGET', KEYS[2], unpack(ids))
local answers, done = { unpack(ARGV, 1, n) }, { unpack(ARGV, 1, n) }
-- Records written as sent: keys and values for one MSET, then a PEXPIREAT each (an integer reply),
-- cheaper than a SET … PX each (whose status reply Redis turns into a Lua table).
local writes = { unpack(ARGV, 1, 2 * n) }
local w = 0
local reads, firsts = {}, {} -- the j of held leases whose record is read and rebuilt here, their third values
local d = 0
local mine, first = ARGV[4], ARGV[5]
for j = 1, n do
  local state, rest = held[j], ARGV[4 * j + 2]
  if j > 1 then
    local sent, third = ARGV[4 * j], ARGV[4 * j + 1]
    if sent ~= '' then mine = sent end
    if third ~= '' then first = third end
  end
  if state == mine and string.byte(rest, 1) == 10 then
    answers[j] = 'ok'
    d = d + 1
    done[d] = ids[j]
    w = w + 2
    writes[w - 1], writes[w] = prefix .. ids[j], first .. nowText .. rest
  elseif holds(state, mine) then
    answers[j] = 'ok'
    d = d + 1
    done[d] = ids[j]
    reads[#reads + 1] = j
    firsts[#reads] = first
  else
    answers[j] = refusal(prefix .. ids[j])
  end
end
if w > 0 then
  redis.call('MSET', unpack(writes, 1, w))
  local expiry = string.format('%d', now + tonumber(ttl))
  for k = 1, w, 2 do redis.call('PEXPIREAT', writes[k], expiry) end
end
if d == 0 then return answers end

-- The outcome of a quadruple: its status and the error and result lines (either form, see above).
local function outcomeOf(j, first)
  local rest = ARGV[4 * j + 2]
  if string.byte(rest, 1) == 10 then
    local err, result = string.match(rest, '^\n[^\n]*\n([^\n]*)\n([^\n]*)\n')
    return string.match(first, '^%a+'), err, result
  end
  -- The outcome fills one line and empties the other: an empty line reads as absent (redis-record.ts).
  if first == 'completed' then return first, '', rest end
  return 'failed', rest, ''
end

if #reads > 0 then
  local keys = {}
  for i, j in ipairs(reads) do keys[i] = prefix .. ids[j] end
  local values = redis.call('MGET', unpack(keys))
  for i, j in ipairs(reads) do
    local key, state = keys[i], held[j]
    local status, err, result = outcomeOf(j, firsts[i])
    local value = values[i] and finishedValue(values[i], stateFields(state), status, nowText, err, result)
    if value then
      redis.call('SET', key, value, 'PX', ttl)
    else
      local record = decodeRecord(values[i])
      if record then
        finishRecord(key, asRunning(record, state), status, nowText, ttl, err, result)
      else
        answers[j] = 'lost' -- the record is gone (deleted by hand); its lease ends below
      end
    end
  end
end
redis.call('ZREM', KEYS[1], unpack(done, 1, d))
redis.call('HDEL', KEYS[2], unpack(done, 1, d))
return answers
