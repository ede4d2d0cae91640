--[[
  Retires a version: never chosen again, still readable. Idempotent (a second retire keeps the first
  retired_at); a pin on the version is removed in the same step.

  Input:
    KEYS[1]      the metadata, manifold:v1:<ns>:{<namespace>/<name>}:skill:meta (hash; see publish-3.lua)

    ARGV[1]      the version
    ARGV[2]      retired_at, RFC 3339

  Output:
    { 'ok', metadata after (HGETALL) } | { 'missing' } (no such version)
]]
if redis.call('HEXISTS', KEYS[1], 's:' .. ARGV[1]) == 0 then return { 'missing' } end
redis.call('HSETNX', KEYS[1], 't:' .. ARGV[1], ARGV[2])
if redis.call('HGET', KEYS[1], 'pin') == ARGV[1] then redis.call('HDEL', KEYS[1], 'pin') end
return { 'ok', redis.call('HGETALL', KEYS[1]) }
