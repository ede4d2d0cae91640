--[[
  Publishes one skill version, one compare-and-set: versions are immutable, so the same version is a
  no-op when its digest matches and a conflict when it does not; of two racing publishes of one
  version exactly one writes it. A skill at its version bound drops its oldest retired version (its
  metadata, body and resources) to take the new one, and refuses when none is retired.

  The skill's three keys share its hash tag {<namespace>/<name>}. The metadata hash holds, per
  version v: s:v (JSON: version, digest, published_at, description), d:v (digest), q:v (publish
  order), t:v (retired_at, once retired); and pin, seq (last publish order), n (version count).

  Input:
    KEYS[1]      the metadata, manifold:v1:<ns>:{<namespace>/<name>}:skill:meta (hash)
    KEYS[2]      the bodies, manifold:v1:<ns>:{<namespace>/<name>}:skill:body (hash: version → JSON)
    KEYS[3]      the resources, manifold:v1:<ns>:{<namespace>/<name>}:skill:res (hash: "<version>\n<path>" → JSON)

    ARGV[1]      the version
    ARGV[2]      its digest
    ARGV[3]      its metadata, JSON
    ARGV[4]      its body, JSON
    ARGV[5]      most versions of one skill
    ARGV[6..]    pairs: a resource path, the resource as JSON

  Output:
    { 'ok', publish order } | { 'exists' } (same digest) | { 'conflict' } (another digest) | { 'limit' }
]]
local version = ARGV[1]
local stored = redis.call('HGET', KEYS[1], 'd:' .. version)
if stored then
  if stored == ARGV[2] then return { 'exists' } end
  return { 'conflict' }
end

local count = tonumber(redis.call('HGET', KEYS[1], 'n') or '0')
if count >= tonumber(ARGV[5]) then
  -- The oldest retired version (lowest publish order) makes room.
  local flat = redis.call('HGETALL', KEYS[1])
  local oldest, oldestSeq = nil, nil
  for i = 1, #flat, 2 do
    local field = flat[i]
    if string.sub(field, 1, 2) == 't:' then
      local v = string.sub(field, 3)
      local seq = tonumber(redis.call('HGET', KEYS[1], 'q:' .. v))
      if oldestSeq == nil or seq < oldestSeq then oldest, oldestSeq = v, seq end
    end
  end
  if oldest == nil then return { 'limit' } end
  redis.call('HDEL', KEYS[1], 's:' .. oldest, 'd:' .. oldest, 'q:' .. oldest, 't:' .. oldest)
  redis.call('HDEL', KEYS[2], oldest)
  local prefix = oldest .. '\n'
  for _, field in ipairs(redis.call('HKEYS', KEYS[3])) do
    if string.sub(field, 1, #prefix) == prefix then redis.call('HDEL', KEYS[3], field) end
  end
  count = count - 1
end

local seq = redis.call('HINCRBY', KEYS[1], 'seq', 1)
redis.call('HSET', KEYS[1], 's:' .. version, ARGV[3], 'd:' .. version, ARGV[2], 'q:' .. version, seq, 'n', count + 1)
redis.call('HSET', KEYS[2], version, ARGV[4])
for i = 6, #ARGV, 2 do
  redis.call('HSET', KEYS[3], version .. '\n' .. ARGV[i], ARGV[i + 1])
end
return { 'ok', seq }
