--[[
  Takes up to `count` tasks under a lease: first running tasks whose lease lapsed (their worker is
  presumed dead), then the head of the queue. O(count).

  Input:
    KEYS[1]      the queue (a list of ids)
    KEYS[2]      the leases (a sorted set: id scored by lease expiry, ms of server time)
    KEYS[3]      the wake list
    KEYS[4]      the skip counter: ids still in the queue whose task was cancelled while queued
    KEYS[5]      the running hash (id → lease state, includes/running-state)

    ARGV[1]      the record key prefix, manifold:v1:<ns>:{tasks:<queue>}:task: (same hash tag as KEYS)
    ARGV[2]      count, most tasks to take
    ARGV[3]      lease length in ms
    ARGV[4]      max deliveries: a lapsed task delivered this many times is failed, not redelivered
    ARGV[5]      '1' for at-most-once delivery (a lapsed task is failed, never redelivered), else '0'
    ARGV[6]      TTL in ms of a record once finished
    ARGV[7]      token prefix, unique per call (the backend's random id and a call counter)
    ARGV[8]      error JSON for a spent redelivery budget
    ARGV[9]      error JSON for a lapsed lease under at-most-once delivery

  Output:
    { server time ms, earliest lease expiry ms (-1 if none, or if the batch was full),
      id, record, lease state, id, record, lease state, … }; every lease taken expires at server time
      + ARGV[3]; its token is the lease state followed by the id

  A task taken is not rewritten: its record keeps its queued header, and the lease is its state in the
  running hash, one HSET for the batch; every first delivery of the call shares one state string. So a
  task costs no command of its own here and no string built for it, only its share of a few commands.
  A redelivery counts one more delivery and gets a new state, so the old worker's writes are refused.
  When the batch is full and the queue still holds ids, a wake-up is left for the next blocked dequeuer.
  Needs Redis 6.2+ (LPOP with a count).
]]
--- @include "../../store/lua/includes/server-time"
--- @include "includes/running-state"
--- @include "includes/finish-record"
--- @include "includes/wake"

local now = serverTimeMs()
local nowText = string.format('%d', now)
local prefix = ARGV[1]
local count = tonumber(ARGV[2])
local expiry = string.format('%d', now + tonumber(ARGV[3]))
local maxDeliveries = tonumber(ARGV[4])
local atMostOnce = ARGV[5] == '1'
local ttl = ARGV[6]
local tokenPrefix = ARGV[7]
-- The state of every first delivery in this call (deliveries 1, started now).
local firstState = tokenPrefix .. '|1|' .. nowText

local WIDE = string.rep('~', 65) -- see the HSET below
-- The batch's tables are made at their full size at once (a table grown by appends is rehashed at
-- every power of two), so they are filled by index, not by #t + 1; the reply ends at its first nil.
local EMPTY = {}
local out = { unpack(EMPTY, 1, 2 + 3 * count) }
out[1], out[2] = now, -1
local states, leased = { unpack(EMPTY, 1, 2 * count) }, { unpack(EMPTY, 1, 2 * count) }
local taken, ended = {}, {}
local n = 0
-- Whether an id can come twice in this call (see the queue loop below); set there.
local twice = false

local function take(id, value, state)
  n = n + 1
  if twice then taken[id] = true end
  local s, o = 2 * n, 3 * n
  states[s - 1], states[s] = id, state
  leased[s - 1], leased[s] = expiry, id
  out[o], out[o + 1], out[o + 2] = id, value, state
end

-- The records of `ids` (one MGET), with their keys.
local function readAll(ids)
  local keys = { unpack(ids) }
  for i = 1, #ids do keys[i] = prefix .. ids[i] end
  return keys, redis.call('MGET', unpack(keys))
end

local lapsed = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, count)
local stale = redis.call('EXISTS', KEYS[4]) == 1 -- the skip counter is deleted once it reaches 0
twice = stale or #lapsed > 0
if #lapsed > 0 then
  redis.call('ZREM', KEYS[2], unpack(lapsed))
  local held = redis.call('HMGET', KEYS[5], unpack(lapsed))
  local keys, values = readAll(lapsed)
  for i, id in ipairs(lapsed) do
    local record = decodeRecord(values[i])
    local state = held[i]
    if state then ended[#ended + 1] = id end
    -- A record without a lease state but running is one the previous layout wrote (its lease in its header).
    if record and (state or record.status == 'running') then
      if state then asRunning(record, state) end
      if atMostOnce or tonumber(record.deliveries) >= maxDeliveries then
        finishRecord(keys[i], record, 'failed', nowText, ttl, atMostOnce and ARGV[9] or ARGV[8], resultLine(record))
      else
        local next = tokenPrefix .. '|' .. nextCount(record.deliveries) .. '|' .. record.started
        local value = values[i]
        if not state then
          record.status, record.token = 'queued', ''
          value = withHeader(record)
          redis.call('SET', keys[i], value)
        end
        take(id, value, next)
      end
    end
  end
end

-- Ids of tasks cancelled while queued are dropped as they come; a call looks at no more than 1,000
-- ids, so a long run of them cannot stall the server (the wake-up below sends the next call on). An
-- id met twice in one call (a stale copy of a cancelled task's id whose record expired and was made
-- again) is taken once. While the queue may hold such copies (the skip counter is above 0), an id is
-- also looked up in the running hash: its record alone does not say it was taken by an earlier call.
-- Without such copies and lapsed tasks no id comes twice (a create of an existing id is refused, and
-- a running task is back in the queue only by its release), so `taken` is not kept.
local budget = 1000
local skipped = 0
while n < count and budget > 0 do
  local ids = redis.call('LPOP', KEYS[1], math.min(count - n, budget))
  if not ids then break end
  budget = budget - #ids
  local _, values = readAll(ids)
  local held = stale and redis.call('HMGET', KEYS[5], unpack(ids)) or {}
  for i, id in ipairs(ids) do
    local value = values[i]
    local taking = false
    if value and not held[i] and not taken[id] then
      -- A first delivery: a header 'queued|0||<created>||' whose created time has 13 digits (ms from
      -- 2001 to 2286), checked by two byte reads (a pattern match costs more); others are decoded.
      local q, _, _, _, _, _, _, d, p, t = string.byte(value, 1, 10)
      local s, f, nl = string.byte(value, 24, 26)
      if q == 113 and d == 48 and p == 124 and t == 124 and s == 124 and f == 124 and nl == 10 then
        take(id, value, firstState)
        taking = true
      else
        -- Released before (its deliveries and first start kept), or not queued at all.
        local record = decodeRecord(value)
        if record and record.status == 'queued' then
          local started = record.started == '' and nowText or record.started
          take(id, value, tokenPrefix .. '|' .. nextCount(record.deliveries) .. '|' .. started)
          taking = true
        end
      end
    end
    if not taking then skipped = skipped + 1 end
  end
end
if skipped > 0 and redis.call('DECRBY', KEYS[4], skipped) <= 0 then redis.call('DEL', KEYS[4]) end

if #ended > 0 then redis.call('HDEL', KEYS[5], unpack(ended)) end
if n > 0 then
  -- A small hash or sorted set is a listpack, where every HSET, HMGET, HDEL, ZADD and ZREM scans all
  -- entries: with a pool's 50-100 leases that was most of a dequeue and a finish. A member longer than
  -- 64 bytes (the default *-max-listpack-value) turns the key into a hash table / skip list, and it
  -- stays one once the member is removed (Redis converts back only when the key is deleted, empty).
  redis.call('HSET', KEYS[5], WIDE, '', unpack(states, 1, 2 * n))
  redis.call('HDEL', KEYS[5], WIDE)
  redis.call('ZADD', KEYS[2], '+inf', WIDE, unpack(leased, 1, 2 * n))
  redis.call('ZREM', KEYS[2], WIDE)
end
if (n == count or budget <= 0) and redis.call('LLEN', KEYS[1]) > 0 then
  wakeDequeuer(KEYS[3])
elseif n == 0 then
  local first = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
  if first[2] then out[2] = first[2] end
end
return out
