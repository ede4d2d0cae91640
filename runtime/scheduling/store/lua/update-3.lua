--[[
  Replaces an existing schedule's definition and, when given a due time, re-indexes it. The fire
  state (count, last fired) lives in its own hashes, so a firing in between is kept.

  Input:
    KEYS[1]      definitions, manifold:v1:<ns>:{schedules}:defs
    KEYS[2]      due index, manifold:v1:<ns>:{schedules}:due
    KEYS[3]      the agent's index, manifold:v1:<ns>:{schedules}:agent:<target_agent>

    ARGV[1]      schedule id
    ARGV[2]      the definition, JSON
    ARGV[3]      new due time, epoch ms, or '' to keep the current one

  Output:
    1 when updated, 0 when the schedule no longer exists
]]
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
if ARGV[3] ~= '' then
  redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
  redis.call('ZADD', KEYS[3], ARGV[3], ARGV[1])
end
return 1
