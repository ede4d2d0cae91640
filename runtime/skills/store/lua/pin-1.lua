--[[
  Pins a version of a skill, or removes the pin: only a version that exists and is not retired can
  be pinned, checked and written in one step so a concurrent retire cannot leave a pin on a retired
  version.

  Input:
    KEYS[1]      the metadata, manifold:v1:<ns>:{<namespace>/<name>}:skill:meta (hash; see publish-3.lua)

    ARGV[1]      the version to pin, or '' to remove the pin

  Output:
    { 'ok', metadata after (HGETALL) } | { 'no_skill' } | { 'missing' } (no such version) | { 'retired' }
]]
if redis.call('EXISTS', KEYS[1]) == 0 then return { 'no_skill' } end
if ARGV[1] == '' then
  redis.call('HDEL', KEYS[1], 'pin')
  return { 'ok', redis.call('HGETALL', KEYS[1]) }
end
if redis.call('HEXISTS', KEYS[1], 's:' .. ARGV[1]) == 0 then return { 'missing' } end
if redis.call('HEXISTS', KEYS[1], 't:' .. ARGV[1]) == 1 then return { 'retired' } end
redis.call('HSET', KEYS[1], 'pin', ARGV[1])
return { 'ok', redis.call('HGETALL', KEYS[1]) }
