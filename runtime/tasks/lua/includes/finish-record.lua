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
local function finishedValue(value, fields, status, nowText, err, result)
  if string.byte(value, 1) ~= 113 then return nil end -- 'q'ueued
  local p2 = string.find(value, '|', 8, true)
  if not p2 or string.byte(value, p2 + 1) ~= 124 then return nil end -- '|': the token is empty
  local p4 = string.find(value, '|', p2 + 2, true)
  local n1 = p4 and string.find(value, '\n', p4, true)
  local n2 = n1 and string.find(value, '\n', n1 + 1, true)
  if not n2 then return nil end
  local e, r = string.byte(value, n2 + 1, n2 + 2)
  if e ~= 10 or r ~= 10 then return nil end
  return status .. '|' .. fields.deliveries .. '|' .. string.sub(value, p2 + 1, p4) .. fields.started .. '|' .. nowText
    .. string.sub(value, n1, n2) .. err .. '\n' .. result .. string.sub(value, n2 + 2)
end
