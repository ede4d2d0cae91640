--[[
  After a firing, the compare-and-set that makes it count once, for a batch of schedules: for each,
  only while it is still indexed at the due time the firing read (no other replica advanced it, no
  update or cancel since), a one-shot schedule is removed and a recurring one re-indexed at its
  next time, its fire count incremented and its last fire time set. The batch is one script, so it
  is atomic as a whole; each item is decided on its own.

  Input:
    KEYS[1]      definitions, manifold:v1:<ns>:{schedules}:defs
    KEYS[2]      fire counts, manifold:v1:<ns>:{schedules}:fire-count (hash: id -> n)
    KEYS[3]      last fire times, manifold:v1:<ns>:{schedules}:last-fired (hash: id -> ISO 8601)
    KEYS[4]      due index, manifold:v1:<ns>:{schedules}:due
    KEYS[5..n]   item i's agent index at KEYS[4 + i], manifold:v1:<ns>:{schedules}:agent:<target_agent>

    ARGV[4i - 3] item i's schedule id
    ARGV[4i - 2] the due time the firing read, epoch ms
    ARGV[4i - 1] the next due time, epoch ms, or '' for a one-shot schedule
    ARGV[4i]     the fire time, ISO 8601

  Output:
    { 1 | 0 per item: 1 when it applied, 0 when the schedule had moved or gone }
]]
--- @include "includes/remove"

local results = {}
for i = 1, #KEYS - 4 do
  local id, due, nextDue, firedAt = ARGV[4 * i - 3], ARGV[4 * i - 2], ARGV[4 * i - 1], ARGV[4 * i]
  local agentKey = KEYS[4 + i]
  local score = redis.call('ZSCORE', KEYS[4], id)
  if not score or tonumber(score) ~= tonumber(due) then
    results[i] = 0
  elseif nextDue == '' then
    removeSchedule(id, agentKey)
    results[i] = 1
  else
    redis.call('ZADD', KEYS[4], nextDue, id)
    redis.call('ZADD', agentKey, nextDue, id)
    redis.call('HINCRBY', KEYS[2], id, 1)
    redis.call('HSET', KEYS[3], id, firedAt)
    results[i] = 1
  end
end
return results
