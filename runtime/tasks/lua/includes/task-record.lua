--[[
  Include: the task record format (runtime/tasks/redis-record.ts decodes the same string), one
  string of five lines,
    <status>|<deliveries>|<token>|<created>|<started>|<finished>\n<progress>\n<error>\n<result>\n<fixed>
  read into a table and written back, so no script spells the format. The JSON lines stay strings:
  decoding them with cjson would round numbers to 14 digits. JSON never holds a raw newline, so the
  lines are unambiguous. Times are epoch ms of the server's clock, '' while unset.

  Input:
    KEYS[1..n]   not read (an include sees the including script's KEYS and ARGV and reads neither)

  Output:
    defines decodeRecord(value) → record | nil, encodeRecord(record) → string,
    readRecord(key) → record | nil, the stored string | nil;
    a record is { status, deliveries (a number), token, created, started, finished, progress, error,
    result, fixed }; nil for a missing key or a value that is not a task record (written by hand)
]]
local RECORD_PATTERN = '^(%a+)|(%d+)|([^|]*)|(%d*)|(%d*)|(%d*)\n([^\n]*)\n([^\n]*)\n([^\n]*)\n(.*)$'

local function decodeRecord(value)
  local status, deliveries, token, created, started, finished, progress, err, result, fixed =
    string.match(value, RECORD_PATTERN)
  if not status then return nil end
  return {
    status = status, deliveries = tonumber(deliveries), token = token,
    created = created, started = started, finished = finished,
    progress = progress, error = err, result = result, fixed = fixed,
  }
end

local function encodeRecord(r)
  return r.status .. '|' .. r.deliveries .. '|' .. r.token .. '|' .. r.created .. '|' .. r.started .. '|' .. r.finished
    .. '\n' .. r.progress .. '\n' .. r.error .. '\n' .. r.result .. '\n' .. r.fixed
end

local function readRecord(key)
  local value = redis.call('GET', key)
  if not value then return nil, nil end
  return decodeRecord(value), value
end
