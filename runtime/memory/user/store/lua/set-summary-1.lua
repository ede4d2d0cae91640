--[[
  Keeps a user's summary beside the facts it was made from, refreshing their TTL, only while those
  facts are the current ones: nothing is written once the revision has moved on (a fact deleted
  while the summary was written must not come back inside it), nor for a user with no facts stored
  (expired or cleared meanwhile): a summary of nothing is not kept.

  Input:
    KEYS[1]      the user's facts, manifold:v1:<ns>:{user_facts:<user digest>}:facts

    ARGV[1]      the summary, JSON
    ARGV[2]      TTL, ms
    ARGV[3]      the facts revision it was made from

  Output:
    1 when kept, 0 when the user has no facts or the revision has moved on
]]
if tonumber(redis.call('HGET', KEYS[1], 'n') or '0') == 0 then return 0 end
if redis.call('HGET', KEYS[1], 'rev') ~= ARGV[3] then return 0 end
redis.call('HSET', KEYS[1], 'summary', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
