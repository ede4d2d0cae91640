--[[
  Include: how a task ends (completed, failed, cancelled). A finished record has no lease token, a
  finished time, and a TTL; queued and running records never expire.

  Input:
    KEYS[1..n]   not read (an include sees the including script's KEYS and ARGV and reads neither)

  Output:
    defines finishRecord(key, record, status, nowText, ttl, error, result) → the stored string;
    `error` and `result` are the new lines (JSON, '' for none)
]]
--- @include "task-record"

local function finishRecord(key, record, status, nowText, ttl, err, result)
  record.status = status
  record.token = ''
  record.finished = nowText
  local value = withLines(record, err, result)
  redis.call('SET', key, value, 'PX', ttl)
  return value
end
