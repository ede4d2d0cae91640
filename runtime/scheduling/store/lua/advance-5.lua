--[[
  After a firing, the compare-and-set that makes it count once: only while the schedule is still
  indexed at the due time the firing read (no other replica advanced it, no update or cancel since),
  a one-shot schedule is removed and a recurring one re-indexed at its next time, its fire count
  incremented and its last fire time set.

  Input:
    KEYS[1]      definitions, manifold:v1:<ns>:{schedules}:defs
    KEYS[2]      fire counts, manifold:v1:<ns>:{schedules}:fire-count
    KEYS[3]      last fire times, manifold:v1:<ns>:{schedules}:last-fired
    KEYS[4]      due index, manifold:v1:<ns>:{schedules}:due
    KEYS[5]      the agent's index, manifold:v1:<ns>:{schedules}:agent:<target_agent>

    ARGV[1]      schedule id
    ARGV[2]      the due time the firing read, epoch ms
    ARGV[3]      the next due time, epoch ms, or '' for a one-shot schedule
    ARGV[4]      the fire time, ISO 8601

  Output:
    1 when it applied, 0 when the schedule had moved or gone
]]
--- @include "includes/remove"

local score = redis.call('ZSCORE', KEYS[4], ARGV[1])
if not score or tonumber(score) ~= tonumber(ARGV[2]) then return 0 end
if ARGV[3] == '' then
  removeSchedule(ARGV[1])
  return 1
end
redis.call('ZADD', KEYS[4], ARGV[3], ARGV[1])
redis.call('ZADD', KEYS[5], ARGV[3], ARGV[1])
redis.call('HINCRBY', KEYS[2], ARGV[1], 1)
redis.call('HSET', KEYS[3], ARGV[1], ARGV[4])
return 1
