--[[
  Removes one fact of a user and bumps the user's revision, in one step, so exactly one of two racing
  deletes (or a delete racing a put) sees the fact go. The summary goes too: it was made from facts
  that held this one and may quote it, and a forgotten value must not stay behind in it.

  Input:
    KEYS[1]      the user's facts, manifold:v1:<ns>:{user_facts:<user digest>}:facts

    ARGV[1]      the fact's key
    ARGV[2]      TTL, ms

  Output:
    1 when the fact was there, 0 when it was not
]]
if redis.call('HDEL', KEYS[1], 'f:' .. ARGV[1]) == 0 then return 0 end
redis.call('HINCRBY', KEYS[1], 'n', -1)
redis.call('HDEL', KEYS[1], 'summary')
redis.call('HINCRBY', KEYS[1], 'rev', 1)
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
