--[[
  Writes one fact of a user (adds its key or replaces its value) and bumps the user's revision, in
  one step; refuses a new key once the user holds the most facts allowed. Refreshes the TTL of the
  user's facts.

  Input:
    KEYS[1]      the user's facts, manifold:v1:<ns>:{user_facts:<user digest>}:facts (hash: f:<key> →
                 fact JSON, n → fact count, rev → revision, summary → summary JSON, user → owner key)

    ARGV[1]      the fact's key
    ARGV[2]      the fact, JSON (never decoded here)
    ARGV[3]      most facts a user keeps
    ARGV[4]      TTL, ms
    ARGV[5]      the owner key
    ARGV[6]      the revision to start from when the user has none

  Output:
    the new revision, or 'LIMIT' when the key is new and the user is full
]]
local field = 'f:' .. ARGV[1]
local exists = redis.call('HEXISTS', KEYS[1], field) == 1
if not exists then
  local count = tonumber(redis.call('HGET', KEYS[1], 'n') or '0')
  if count >= tonumber(ARGV[3]) then return 'LIMIT' end
  redis.call('HINCRBY', KEYS[1], 'n', 1)
end
redis.call('HSET', KEYS[1], field, ARGV[2], 'user', ARGV[5])
redis.call('HSETNX', KEYS[1], 'rev', ARGV[6])
local rev = redis.call('HINCRBY', KEYS[1], 'rev', 1)
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return rev
