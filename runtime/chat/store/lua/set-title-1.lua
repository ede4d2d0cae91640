--[[
  Sets a session's title and bumps updated_at and its TTL, only if the session exists.

  Input:
    KEYS[1]      the session, manifold:v1:<ns>:sessions:<id>

    ARGV[1]      the title
    ARGV[2]      updated_at, RFC 3339
    ARGV[3]      TTL, ms

  Output:
    the session's user_id, or false when the session does not exist
]]
local user = redis.call('HGET', KEYS[1], 'user_id')
if not user then return false end
redis.call('HSET', KEYS[1], 'title', ARGV[1], 'updated_at', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return user
