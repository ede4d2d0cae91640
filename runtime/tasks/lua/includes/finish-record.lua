--[[
  Include: how a task ends (completed, failed, cancelled). A finished record has no lease token, a
  finished time, and a TTL; queued and running records never expire.

  Input:
    KEYS[1..n]   not read (an include sees the including script's KEYS and ARGV and reads neither)

  Output:
    defines finishRecord(key, record, status, nowText, ttl, error, result) → the stored string;
    `error` and `result` are the new lines (JSON, '' for none);
    finishedValue(value, fields, status, nowText, error, result) → the same string for a live record
    (`fields`: its lease's stateFields), built from slices of the stored one without decoding it, or
    nil if `value` is not in the form a live record has (the caller then decodes it)
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

-- A live record: 'queued|<deliveries>||<created>|<started>|\n<progress>\n\n\n<fixed>' (no token, no
-- finish, empty error and result lines). Its finished form keeps the created time, the progress
-- line and the fixed part as slices; the header takes the lease's deliveries and first start.
-- One pattern match finds every position (a C call per position cost more than the match): the token
-- and the error and result lines must be empty.
local LIVE_PATTERN = '^q[^|]*|[^|]*()||[^|]*()|[^\n]*()\n[^\n]*()\n\n\n'
local function finishedValue(value, fields, status, nowText, err, result)
  local p2, p4, n1, n2 = string.match(value, LIVE_PATTERN)
  if not p2 then return nil end
  return status .. '|' .. fields.deliveries .. string.sub(value, p2, p4) .. fields.started .. '|' .. nowText
    .. string.sub(value, n1, n2) .. err .. '\n' .. result .. string.sub(value, n2 + 2)
end
