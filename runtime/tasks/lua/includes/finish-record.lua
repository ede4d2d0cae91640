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
-- Most are a first delivery without progress, 'queued|0||<13 digits>||\n\n\n\n<fixed>', checked by
-- two byte reads at fixed places; any other live record is read by one pattern match.
local LIVE_PATTERN = '^q[^|]*|[^|]*()||[^|]*()|[^\n]*()\n[^\n]*()\n\n\n'
local function finishedValue(value, fields, status, nowText, err, result)
  local q, _, _, _, _, _, _, _, p, t = string.byte(value, 1, 10)
  local s, f, n1, n2, e, r = string.byte(value, 24, 29)
  if q == 113 and p == 124 and t == 124 and s == 124 and f == 124 and n1 == 10 and n2 == 10 and e == 10 and r == 10 then
    return status .. '|' .. fields.deliveries .. string.sub(value, 9, 24) .. fields.started .. '|' .. nowText
      .. '\n\n' .. err .. '\n' .. result .. string.sub(value, 29)
  end
  local p2, p4, l1, l2 = string.match(value, LIVE_PATTERN)
  if not p2 then return nil end
  return status .. '|' .. fields.deliveries .. string.sub(value, p2, p4) .. fields.started .. '|' .. nowText
    .. string.sub(value, l1, l2) .. err .. '\n' .. result .. string.sub(value, l2 + 2)
end
