--[[
  Adds one episode to its domain and its indexes, then drops the oldest episodes past the domain's
  count. An id already stored is left as it is (an append retried after a lost reply).

  Input:
    KEYS[1]      the domain's index, manifold:v1:<ns>:{episodes:<domain>}:idx (sorted set, score 0, ids by lex = time)
    KEYS[2]      unreflected episodes, …:unreflected (same shape)
    KEYS[3]      claims' leases, …:leases (sorted set: episode id → lease end, ms)
    KEYS[4]      the episode, …:ep:<id> (hash: body, ents, reflected_at)
    KEYS[5..n]   the index of each entity it is about, …:ent:<digest>

    ARGV[1]      the episode id
    ARGV[2]      the episode's JSON (never decoded here)
    ARGV[3]      its entities' digests, space-separated
    ARGV[4]      reflected_at, or '' when not reflected
    ARGV[5]      the episode's TTL, ms
    ARGV[6]      the indexes' TTL, ms (refreshed on every write: an idle domain expires whole)
    ARGV[7]      most episodes kept
    ARGV[8]      the episode key prefix, …:ep: (same hash tag)
    ARGV[9]      the entity index prefix, …:ent: (same hash tag)

  Output:
    1 added, 0 already there
]]
--- @include "includes/drop"

local id = ARGV[1]
if redis.call('EXISTS', KEYS[4]) == 1 then return 0 end
redis.call('HSET', KEYS[4], 'body', ARGV[2], 'ents', ARGV[3])
if ARGV[4] ~= '' then
  redis.call('HSET', KEYS[4], 'reflected_at', ARGV[4])
else
  redis.call('ZADD', KEYS[2], 0, id)
end
redis.call('PEXPIRE', KEYS[4], ARGV[5])
redis.call('ZADD', KEYS[1], 0, id)
for i = 5, #KEYS do
  redis.call('ZADD', KEYS[i], 0, id)
  redis.call('PEXPIRE', KEYS[i], ARGV[6])
end
for i = 1, 3 do redis.call('PEXPIRE', KEYS[i], ARGV[6]) end

local over = redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[7])
if over > 0 then
  for _, old in ipairs(redis.call('ZRANGE', KEYS[1], 0, over - 1)) do
    dropEpisode(old, KEYS[1], KEYS[2], KEYS[3], ARGV[8], ARGV[9])
  end
end
return 1
