--[[
  Appends one message to a session, atomically: concurrent appends all land, in the order Redis runs
  them, and the oldest beyond the cap are dropped. The first user message becomes the title and the
  list preview (when none is set). Bumps updated_at and refreshes the TTL. Nothing is created for an
  unknown or expired session.

  Input:
    KEYS[1]      the session, manifold:v1:<ns>:sessions:<id> (hash; messages in fields m:<seq>)

    ARGV[1]      the message, JSON
    ARGV[2]      its role
    ARGV[3]      title from it (used when the session has none)
    ARGV[4]      preview from it (used when the session has none)
    ARGV[5]      updated_at, RFC 3339
    ARGV[6]      TTL, ms
    ARGV[7]      most messages kept

  Output:
    the session's user_id, or false when the session does not exist
]]
local user = redis.call('HGET', KEYS[1], 'user_id')
if not user then return false end
local seq = redis.call('HINCRBY', KEYS[1], 'next', 1) - 1
redis.call('HSET', KEYS[1], 'm:' .. seq, ARGV[1], 'updated_at', ARGV[5])
local first = tonumber(redis.call('HGET', KEYS[1], 'first') or '0')
local max = tonumber(ARGV[7])
while seq + 1 - first > max do
  redis.call('HDEL', KEYS[1], 'm:' .. first)
  first = first + 1
end
redis.call('HSET', KEYS[1], 'first', first)
if ARGV[2] == 'user' then
  if redis.call('HGET', KEYS[1], 'title') == '' then redis.call('HSET', KEYS[1], 'title', ARGV[3]) end
  if redis.call('HGET', KEYS[1], 'preview') == '' then redis.call('HSET', KEYS[1], 'preview', ARGV[4]) end
end
redis.call('PEXPIRE', KEYS[1], ARGV[6])
return user
