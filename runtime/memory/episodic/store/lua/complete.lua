--[[
  A reflection pass's end, in one step: the episodes this pass claimed are marked reflected (others'
  claims are left alone) and its knowledge fragments are stored and indexed; then the oldest
  fragments past the domain's count are dropped.

  Input:
    KEYS[1]      reflection claims, manifold:v1:<ns>:{episodes:<domain>}:claims (hash: episode id → pass id)
    KEYS[2]      the knowledge index, …:kidx (sorted set, lex fragment ids)
    KEYS[3..n]   the entity knowledge index of each fragment, in ARGV's fragment order, …:kent:<digest>

    ARGV[1]      the pass id
    ARGV[2]      reflected_at, ISO 8601
    ARGV[3]      the episode key prefix, …:ep: (same hash tag)
    ARGV[4]      the fragment key prefix, …:kn:
    ARGV[5]      the entity knowledge index prefix, …:kent:
    ARGV[6]      a fragment's TTL, ms
    ARGV[7]      the indexes' TTL, ms
    ARGV[8]      most fragments kept
    ARGV[9]      the number of episode ids (e), then ARGV[10 .. 9+e] the ids
    then         per fragment, three values: its id, its JSON, its entity's digest

  Output:
    the number of episodes marked reflected
]]
--- @include "includes/drop"

local marked = 0
local count = tonumber(ARGV[9])
for i = 10, 9 + count do
  local id = ARGV[i]
  if redis.call('HGET', KEYS[1], id) == ARGV[1] then
    redis.call('HDEL', KEYS[1], id)
    local key = ARGV[3] .. id
    if redis.call('EXISTS', key) == 1 then
      redis.call('HSET', key, 'reflected_at', ARGV[2])
      marked = marked + 1
    end
  end
end

local k = 3
for i = 10 + count, #ARGV - 2, 3 do
  local id, body, ent = ARGV[i], ARGV[i + 1], ARGV[i + 2]
  local key = ARGV[4] .. id
  if redis.call('EXISTS', key) == 0 then
    redis.call('HSET', key, 'body', body, 'ent', ent)
    redis.call('PEXPIRE', key, ARGV[6])
    redis.call('ZADD', KEYS[2], 0, id)
    redis.call('ZADD', KEYS[k], 0, id)
    redis.call('PEXPIRE', KEYS[k], ARGV[7])
  end
  k = k + 1
end
redis.call('PEXPIRE', KEYS[2], ARGV[7])

local over = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[8])
if over > 0 then
  for _, old in ipairs(redis.call('ZRANGE', KEYS[2], 0, over - 1)) do dropFragment(old, KEYS[2], ARGV[4], ARGV[5]) end
end
return marked
