--[[
  Include: the Redis server's clock. Every time in a task record and every lease expiry comes from
  this one clock, so workers whose clocks disagree still agree on when a lease lapsed.

  Input:
    KEYS[1..n]   not read (an include sees the including script's KEYS and ARGV and reads neither)

  Output:
    defines serverTimeMs() → epoch milliseconds (a number)
]]
local function serverTimeMs()
  local time = redis.call('TIME')
  return tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end
