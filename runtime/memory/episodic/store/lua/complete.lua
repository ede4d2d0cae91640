--[[
  A reflection pass's end, in one step: the episodes this pass still holds the claim of are marked
  reflected (others' claims, including ones taken over from this pass after its lease ran out, are
  left alone), and those of its knowledge fragments whose every episode it held are stored and
  indexed; then the oldest fragments past the domain's count are dropped.

  Input:
    KEYS[1]      claims' leases, manifold:v1:<ns>:{episodes:<domain>}:leases (sorted set: episode id → lease end)
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
    then         per fragment, four values: its id, its JSON, its entity's digest, its episode ids space-separated

  Output:
    the number of episodes marked reflected
]]
--- @include "includes/drop"

local marked = 0
local own = {}
local count = tonumber(ARGV[9])
for i = 10, 9 + count do
  local id = ARGV[i]
  local key = ARGV[3] .. id
  if redis.call('HGET', key, 'claim') == ARGV[1] then
    redis.call('HDEL', key, 'claim')
    redis.call('ZREM', KEYS[1], id)
    redis.call('HSET', key, 'reflected_at', ARGV[2])
    own[id] = true
    marked = marked + 1
  end
end

local function allOwn(ids)
  for id in string.gmatch(ids, '%S+') do
    if not own[id] then return false end
  end
  return true
end

local k = 3
for i = 10 + count, #ARGV - 3, 4 do
  local id, body, ent = ARGV[i], ARGV[i + 1], ARGV[i + 2]
  local key = ARGV[4] .. id
  if redis.call('EXISTS', key) == 0 and allOwn(ARGV[i + 3]) then
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
