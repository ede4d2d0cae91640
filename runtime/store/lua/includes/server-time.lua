--[[
  Include: the Redis server's clock, shared by every runtime folder's scripts. Times that several
  processes must agree on (a task's lease expiry, a record's TTL, an index score) come from this one
  clock, so processes whose clocks disagree still agree on them.

  Input:
    KEYS[1..n]   not read (an include sees the including script's KEYS and ARGV and reads neither)

  Output:
    defines serverTimeMs() → epoch milliseconds (a number)
]]
local function serverTimeMs()
  local time = redis.call('TIME')
  return tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end
