--[[
  Include: how a task ends (completed, failed, cancelled). A finished record has no lease token, a
  finished time, and a TTL; queued and running records never expire.

  Input:
    KEYS[1..n]   not read (an include sees the including script's KEYS and ARGV and reads neither)

  Output:
    defines finishRecord(key, record, status, now, ttl) → the stored string; the caller sets the
    record's error or result first
]]
--- @include "task-record"

local function finishRecord(key, record, status, now, ttl)
  record.status = status
  record.token = ''
  record.finished = now
  local value = encodeRecord(record)
  redis.call('SET', key, value, 'PX', ttl)
  return value
end
