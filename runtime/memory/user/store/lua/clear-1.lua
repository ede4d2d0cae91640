--[[
  Removes every fact and the summary of a user in one step. The revision stays and moves on, so a
  recall cache keyed by an earlier revision is never taken for the current one.

  Input:
    KEYS[1]      the user's facts, manifold:v1:<ns>:{user_facts:<user digest>}:facts

    ARGV[1]      TTL, ms

  Output:
    the number of facts removed
]]
local fields = redis.call('HKEYS', KEYS[1])
local removed = 0
local changed = false
for _, field in ipairs(fields) do
  if string.sub(field, 1, 2) == 'f:' then
    redis.call('HDEL', KEYS[1], field)
    removed = removed + 1
    changed = true
  elseif field == 'summary' then
    redis.call('HDEL', KEYS[1], field)
    changed = true
  end
end
if changed then
  redis.call('HSET', KEYS[1], 'n', 0)
  redis.call('HINCRBY', KEYS[1], 'rev', 1)
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
end
return removed
