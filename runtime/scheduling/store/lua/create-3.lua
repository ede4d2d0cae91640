--[[
  Stores a new schedule and indexes it, refusing a taken id and a full store, in one step so two
  creates cannot both pass the count check. Every key shares the {schedules} hash tag.

  Input:
    KEYS[1]      definitions, manifold:v1:<ns>:{schedules}:defs (hash: id -> JSON)
    KEYS[2]      due index, manifold:v1:<ns>:{schedules}:due (sorted set: id by due ms)
    KEYS[3]      the agent's index, manifold:v1:<ns>:{schedules}:agent:<target_agent>

    ARGV[1]      schedule id
    ARGV[2]      the definition, JSON
    ARGV[3]      due time, epoch ms
    ARGV[4]      most schedules held

  Output:
    'OK' | 'EXISTS' | 'FULL'
]]
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return 'EXISTS' end
if redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[4]) then return 'FULL' end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
redis.call('ZADD', KEYS[3], ARGV[3], ARGV[1])
return 'OK'
