--[[
  A reflection pass's claim: first the episodes whose claim's lease ran out (the pass that held them
  died or stalled before completing), then unreflected episodes created before the bound, taken off
  the unreflected index; each is marked with the pass (`claim` in its hash) and leased to it until
  the given time. One script, so of several passes running at once (any replica) each episode goes
  to exactly one while its lease holds. An entry whose episode expired is dropped.

  Input:
    KEYS[1]      unreflected episodes, manifold:v1:<ns>:{episodes:<domain>}:unreflected (sorted set, lex ids)
    KEYS[2]      claims' leases, …:leases (sorted set: episode id, score = the lease's end, ms)

    ARGV[1]      the bound: the 13-digit ms every newly claimed id is below
    ARGV[2]      most episodes claimed
    ARGV[3]      the pass id, reflect-<hex>
    ARGV[4]      the episode key prefix, …:ep: (same hash tag)
    ARGV[5]      now, ms (a lease ending at or before it has run out)
    ARGV[6]      the new claims' lease end, ms
    ARGV[7]      the indexes' TTL, ms

  Output:
    { episode JSON, … } the taken-over ones first, then the new ones oldest first
]]
local limit = tonumber(ARGV[2])
local claimed = {}

local function take(id)
  local key = ARGV[4] .. id
  local body = redis.call('HGET', key, 'body')
  if body then
    redis.call('HSET', key, 'claim', ARGV[3])
    redis.call('ZADD', KEYS[2], ARGV[6], id)
    claimed[#claimed + 1] = body
  else
    redis.call('ZREM', KEYS[2], id)
  end
end

for _, id in ipairs(redis.call('ZRANGE', KEYS[2], '-inf', ARGV[5], 'BYSCORE', 'LIMIT', 0, limit)) do take(id) end
if #claimed < limit then
  for _, id in ipairs(redis.call('ZRANGE', KEYS[1], '-', '(' .. ARGV[1], 'BYLEX', 'LIMIT', 0, limit - #claimed)) do
    redis.call('ZREM', KEYS[1], id)
    take(id)
  end
end
if #claimed > 0 then redis.call('PEXPIRE', KEYS[2], ARGV[7]) end
return claimed
