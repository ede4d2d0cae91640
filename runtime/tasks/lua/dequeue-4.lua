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
    ARGV[7]      token prefix, unique per call (backend's random id + call counter); a lease's token is it + its index
    ARGV[8]      error JSON for a spent redelivery budget
    ARGV[9]      error JSON for a lapsed lease under at-most-once delivery

  Output:
    { server time ms, earliest lease expiry ms (-1 if none, or if the batch was full),
      id, token, record, id, token, record, … }; every lease taken expires at server time + ARGV[3]

  A redelivery counts one more delivery and gets a new token, so the old worker's writes are refused.
  When the batch is full and the queue still holds ids, a wake-up is left for the next blocked dequeuer.
  Needs Redis 6.2+ (LPOP with a count).
]]
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local prefix = ARGV[1]
local count = tonumber(ARGV[2])
local expiry = now + tonumber(ARGV[3])
local maxDeliveries = tonumber(ARGV[4])
local atMostOnce = ARGV[5] == '1'
local ttl = tonumber(ARGV[6])
local PATTERN = '^(%a+)|(%d+)|[^|]*|(%d*)|(%d*)|%d*\n(.*)$'

local out = { now, -1 }
local leased = {}
local n = 0

local function take(id, key, deliveries, created, started, rest)
  n = n + 1
  local token = ARGV[7] .. n
  local record = 'running|' .. deliveries .. '|' .. token .. '|' .. created .. '|' .. started .. '|\n' .. rest
  redis.call('SET', key, record)
  leased[#leased + 1] = expiry
  leased[#leased + 1] = id
  out[#out + 1] = id
  out[#out + 1] = token
  out[#out + 1] = record
end

local lapsed = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, count)
for _, id in ipairs(lapsed) do
  redis.call('ZREM', KEYS[2], id)
  local key = prefix .. id
  local record = redis.call('GET', key)
  if record then
    local status, deliveries, created, started, rest = string.match(record, PATTERN)
    if status == 'running' then
      deliveries = tonumber(deliveries)
      if atMostOnce or deliveries >= maxDeliveries then
        local progress, _, result, fixed = string.match(rest, '^([^\n]*)\n([^\n]*)\n([^\n]*)\n(.*)$')
        local err = atMostOnce and ARGV[9] or ARGV[8]
        redis.call('SET', key, 'failed|' .. deliveries .. '||' .. created .. '|' .. started .. '|' .. now .. '\n' .. progress .. '\n' .. err .. '\n' .. result .. '\n' .. fixed, 'PX', ttl)
      else
        take(id, key, deliveries + 1, created, started, rest)
      end
    end
  end
end

-- Ids of tasks cancelled while queued are dropped as they come; a call looks at no more than 1,000
-- ids, so a long run of them cannot stall the server (the wake-up below sends the next call on).
local budget = 1000
local skipped = 0
while n < count and budget > 0 do
  local ids = redis.call('LPOP', KEYS[1], math.min(count - n, budget))
  if not ids then break end
  budget = budget - #ids
  for _, id in ipairs(ids) do
    local key = prefix .. id
    local record = redis.call('GET', key)
    local status, deliveries, created, started, rest
    if record then status, deliveries, created, started, rest = string.match(record, PATTERN) end
    if status == 'queued' then
      if started == '' then started = now end
      take(id, key, tonumber(deliveries) + 1, created, started, rest)
    else
      skipped = skipped + 1
    end
  end
end
if skipped > 0 and redis.call('DECRBY', KEYS[4], skipped) <= 0 then redis.call('DEL', KEYS[4]) end

if n > 0 then redis.call('ZADD', KEYS[2], unpack(leased)) end
if (n == count or budget <= 0) and redis.call('LLEN', KEYS[1]) > 0 then
  if redis.call('LLEN', KEYS[3]) == 0 then redis.call('RPUSH', KEYS[3], '1') end
elseif n == 0 then
  local first = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
  if first[2] then out[2] = first[2] end
end
return out
