--[[
  Takes up to `count` tasks under a lease: first running tasks whose lease lapsed (their worker is
  presumed dead), then the head of the queue. O(count).

  Input:
    KEYS[1]      the queue (a list of ids)
    KEYS[2]      the leases (a sorted set: id scored by lease expiry, ms of server time)
    KEYS[3]      the wake list
    KEYS[4]      the skip counter: ids still in the queue whose task was cancelled while queued

    ARGV[1]      the record key prefix, manifold:v1:<ns>:{tasks:<queue>}:task: (same hash tag as KEYS)
    ARGV[2]      count, most tasks to take
    ARGV[3]      lease length in ms
    ARGV[4]      max deliveries: a lapsed task delivered this many times is failed, not redelivered
    ARGV[5]      '1' for at-most-once delivery (a lapsed task is failed, never redelivered), else '0'
    ARGV[6]      TTL in ms of a record once finished
    ARGV[7]      token prefix, unique per call (the backend's random id and a call counter); a lease's
                 token is it + the task id (a call takes a task at most once; no number to format)
    ARGV[8]      error JSON for a spent redelivery budget
    ARGV[9]      error JSON for a lapsed lease under at-most-once delivery

  Output:
    { server time ms, earliest lease expiry ms (-1 if none, or if the batch was full),
      id, record, id, record, … }; every lease taken expires at server time + ARGV[3], under token ARGV[7] .. id

  The records are read with one MGET per batch and written with one MSET (live records have no TTL to
  keep), so a task costs no command of its own here, only its share of a few.
  A redelivery counts one more delivery and gets a new token, so the old worker's writes are refused.
  When the batch is full and the queue still holds ids, a wake-up is left for the next blocked dequeuer.
  Needs Redis 6.2+ (LPOP with a count).
]]
--- @include "../../store/lua/includes/server-time"
--- @include "includes/finish-record"
--- @include "includes/wake"

local now = serverTimeMs()
local nowText = tostring(now)
local prefix = ARGV[1]
local count = tonumber(ARGV[2])
local expiry = tostring(now + tonumber(ARGV[3]))
local maxDeliveries = tonumber(ARGV[4])
local atMostOnce = ARGV[5] == '1'
local ttl = ARGV[6]
local tokenPrefix = ARGV[7]

local out = { now, -1 }
local writes, leased, taken = {}, {}, {}
local n = 0

-- The caller has counted this delivery in record.deliveries.
local function take(id, key, record)
  n = n + 1
  taken[id] = true
  record.status = 'running'
  record.token = tokenPrefix .. id
  record.finished = ''
  local stored = withHeader(record)
  writes[#writes + 1] = key
  writes[#writes + 1] = stored
  leased[#leased + 1] = expiry
  leased[#leased + 1] = id
  out[#out + 1] = id
  out[#out + 1] = stored
end

-- The records of `ids` (one MGET), with their keys.
local function readAll(ids)
  local keys = {}
  for i, id in ipairs(ids) do keys[i] = prefix .. id end
  return keys, redis.call('MGET', unpack(keys))
end

local lapsed = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, count)
if #lapsed > 0 then
  redis.call('ZREM', KEYS[2], unpack(lapsed))
  local keys, values = readAll(lapsed)
  for i, id in ipairs(lapsed) do
    local record = decodeRecord(values[i])
    if record and record.status == 'running' then
      if atMostOnce or tonumber(record.deliveries) >= maxDeliveries then
        finishRecord(keys[i], record, 'failed', nowText, ttl, atMostOnce and ARGV[9] or ARGV[8], resultLine(record))
      else
        record.deliveries = nextCount(record.deliveries)
        take(id, keys[i], record)
      end
    end
  end
end

-- Ids of tasks cancelled while queued are dropped as they come; a call looks at no more than 1,000
-- ids, so a long run of them cannot stall the server (the wake-up below sends the next call on). An
-- id met twice in one call (a stale copy of a cancelled task's id whose record expired and was made
-- again) is taken once: the records were read before this call's writes.
local budget = 1000
local skipped = 0
while n < count and budget > 0 do
  local ids = redis.call('LPOP', KEYS[1], math.min(count - n, budget))
  if not ids then break end
  budget = budget - #ids
  local keys, values = readAll(ids)
  for i, id in ipairs(ids) do
    local record = decodeRecord(values[i])
    if record and record.status == 'queued' and not taken[id] then
      if record.started == '' then record.started = nowText end
      record.deliveries = nextCount(record.deliveries)
      take(id, keys[i], record)
    else
      skipped = skipped + 1
    end
  end
end
if skipped > 0 and redis.call('DECRBY', KEYS[4], skipped) <= 0 then redis.call('DEL', KEYS[4]) end

if n > 0 then
  redis.call('MSET', unpack(writes))
  redis.call('ZADD', KEYS[2], unpack(leased))
end
if (n == count or budget <= 0) and redis.call('LLEN', KEYS[1]) > 0 then
  wakeDequeuer(KEYS[3])
elseif n == 0 then
  local first = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
  if first[2] then out[2] = first[2] end
end
return out
