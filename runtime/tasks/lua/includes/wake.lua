--[[
  Include: the wake-up for blocked dequeuers, which BLPOP the wake list. One marker is enough (the
  dequeuer that takes it leaves another when work remains), so the list never grows.

  Input:
    KEYS[1..n]   not read (an include sees the including script's KEYS and ARGV and reads neither)

  Output:
    defines wakeDequeuer(wakeKey): pushes a marker unless one is waiting
]]
local function wakeDequeuer(wakeKey)
  if redis.call('LLEN', wakeKey) == 0 then redis.call('RPUSH', wakeKey, '1') end
end
