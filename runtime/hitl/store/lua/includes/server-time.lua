--[[
  Include: the Redis server's clock, for retention only (the TTL of a record and its purge entry
  are measured on the one clock that expires keys). Decisions (expiry, resolution times) use the
  caller's now, given in ARGV, so both adapters decide alike.

  Input:
    KEYS[1..n]   not read (an include sees the including script's KEYS and ARGV and reads neither)

  Output:
    defines serverTimeMs() → epoch milliseconds (a number)
]]
local function serverTimeMs()
  local time = redis.call('TIME')
  return tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end
