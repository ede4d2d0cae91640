--[[
  The activity digest's compare-and-set: replaces it only while the stored one still covers up to
  the episode the caller read (none stored: ''), so of two compactions racing one wins and the
  other learns it lost.

  Input:
    KEYS[1]      the digest, manifold:v1:<ns>:{episodes:<domain>}:digest (hash: through, body)

    ARGV[1]      the `through` the caller expects, or '' for none
    ARGV[2]      the new digest's `through`
    ARGV[3]      the new digest's JSON
    ARGV[4]      its TTL, ms

  Output:
    1 replaced, 0 the stored digest had moved on
]]
local current = redis.call('HGET', KEYS[1], 'through')
if (current or '') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'through', ARGV[2], 'body', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1
