--[[
  Finishes leased tasks: running → completed (with a result) or running → failed (with an error),
  each only for its lease holder. Several tasks per call, so a worker pool pays one round trip for a
  batch: the leases are checked with one HMGET, the records read with one MGET, and each is written
  with its own SET … PX (the TTL), built from slices of the stored record (includes/finish-record).

  Input:
    KEYS[1]      the leases (sorted set, id scored by expiry ms)
    KEYS[2]      the running hash (id → lease state, includes/running-state)

    ARGV[1]      the record key prefix, manifold:v1:<ns>:{tasks:<queue>}:task: (same hash tag as KEYS)
    ARGV[2]      TTL in ms of a finished record
    ARGV[3..]    quadruples: task id, lease state, 'completed' | 'failed', result JSON ('' for none) | error JSON

  Output:
    per quadruple 'ok' | 'lost' | 'cancelled' (a cancelled task is never overwritten)

  The loops are written out rather than shared with extend (includes/leased-batch): a closure call and
  the tables it fills cost more per task than the rest of the check. Redis hashes every string a
  script makes, byte by byte, so the script makes few: a key and the finished value per task.
]]
--- @include "../../store/lua/includes/server-time"
--- @include "includes/running-state"
--- @include "includes/finish-record"

local nowText = tostring(serverTimeMs())
local prefix = ARGV[1]
local ttl = ARGV[2]
local n = math.floor((#ARGV + 1) / 4) -- quadruples from ARGV[3]
if n < 1 then return {} end
-- Tables made at their full size by a constructor (no rehash as they grow): copies of ARGV, overwritten.
local ids = { unpack(ARGV, 1, n) }
for j = 1, n do ids[j] = ARGV[4 * j - 1] end
local held = redis.call('HMGET', KEYS[2], unpack(ids))
local answers, keys = { unpack(ARGV, 1, n) }, { unpack(ARGV, 1, n) }
local k = 0
for j = 1, n do
  local state = held[j]
  if state and state == ARGV[4 * j] then
    answers[j] = 'ok'
    k = k + 1
    keys[k] = prefix .. ids[j]
  else
    answers[j] = refusal(prefix .. ids[j])
  end
end
if k == 0 then return answers end
local values = redis.call('MGET', unpack(keys, 1, k))
local done = keys -- reused: done[k] replaces keys[k] once that key is written
k = 0
for j = 1, n do
  if answers[j] == 'ok' then
    k = k + 1
    local key, state = keys[k], held[j]
    -- The outcome fills one line and empties the other: an empty line reads as absent (redis-record.ts).
    local status, err, result = ARGV[4 * j + 1], '', ARGV[4 * j + 2]
    if status ~= 'completed' then status, err, result = 'failed', result, '' end
    local value = values[k] and finishedValue(values[k], STATES[state] or stateFields(state), status, nowText, err, result)
    if value then
      redis.call('SET', key, value, 'PX', ttl)
    else
      local record = decodeRecord(values[k])
      if record then
        finishRecord(key, asRunning(record, state), status, nowText, ttl, err, result)
      else
        answers[j] = 'lost' -- the record is gone (deleted by hand); its lease ends below
      end
    end
    done[k] = ids[j]
  end
end
redis.call('ZREM', KEYS[1], unpack(done, 1, k))
redis.call('HDEL', KEYS[2], unpack(done, 1, k))
return answers
