--[[
  A reflection pass's claim: takes up to `limit` unreflected episodes created before the bound off
  the unreflected index and records the pass as their owner. One script, so of several passes
  running at once (any replica) each episode goes to exactly one. An index entry whose episode
  expired is dropped.

  Input:
    KEYS[1]      unreflected episodes, manifold:v1:<ns>:{episodes:<domain>}:unreflected (sorted set, lex ids)
    KEYS[2]      reflection claims, …:claims (hash: episode id → pass id)

    ARGV[1]      the bound: the 13-digit ms every claimed id is below
    ARGV[2]      most episodes claimed
    ARGV[3]      the pass id, reflect-<hex>
    ARGV[4]      the episode key prefix, …:ep: (same hash tag)

  Output:
    { episode JSON, … } oldest first, one per episode claimed
]]
local claimed = {}
local ids = redis.call('ZRANGE', KEYS[1], '-', '(' .. ARGV[1], 'BYLEX', 'LIMIT', 0, tonumber(ARGV[2]))
for _, id in ipairs(ids) do
  redis.call('ZREM', KEYS[1], id)
  local body = redis.call('HGET', ARGV[4] .. id, 'body')
  if body then
    redis.call('HSET', KEYS[2], id, ARGV[3])
    claimed[#claimed + 1] = body
  end
end
return claimed
