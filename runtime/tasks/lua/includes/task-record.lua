--[[
  Include: the task record format (runtime/tasks/redis-record.ts decodes the same string), one
  string of five lines,
    <status>|<deliveries>|<token>|<created>|<started>|<finished>\n<progress>\n<error>\n<result>\n<fixed>
  read into a table and written back, so no script spells the format. Only the header line is split
  into fields; the four JSON lines stay where they are in the stored string, found by position and
  copied as whole slices (never decoded: cjson would round numbers to 14 digits, and a field per
  line would cost a Lua string each). JSON never holds a raw newline, so the lines are unambiguous.
  Times are epoch ms of the server's clock as text, '' while unset; every header field stays text
  (a number in a concatenation costs a sprintf, the largest single cost of these scripts once).

  Input:
    KEYS[1..n]   not read (an include sees the including script's KEYS and ARGV and reads neither)

  Output:
    defines decodeRecord(value) → record | nil (value: a stored string, or false/nil from GET/MGET),
    readRecord(key) → record | nil, recordHeader(record) → its header line,
    withHeader(record) → the stored string with the record's (changed) header fields,
    withLines(record, error, result) → likewise with the error and result lines replaced,
    withProgress(record, progress) → likewise with the progress line replaced,
    resultLine(record) → the stored result line, nextCount(text) → text of the number + 1;
    a record is { status, deliveries, token, created, started, finished } (all text) plus the stored
    string and its line positions; nil for a missing key or a value that is not a task record
]]
local HEADER_PATTERN = '^(%a+)|(%d+)|([^|]*)|(%d*)|(%d*)|(%d*)()\n'

local function decodeRecord(value)
  if not value then return nil end
  local status, deliveries, token, created, started, finished, n1 = string.match(value, HEADER_PATTERN)
  if not status then return nil end
  local n2 = string.find(value, '\n', n1 + 1, true)
  local n3 = n2 and string.find(value, '\n', n2 + 1, true)
  local n4 = n3 and string.find(value, '\n', n3 + 1, true)
  if not n4 then return nil end
  return {
    status = status, deliveries = deliveries, token = token,
    created = created, started = started, finished = finished,
    value = value, n1 = n1, n2 = n2, n3 = n3, n4 = n4,
  }
end

local function readRecord(key)
  return decodeRecord(redis.call('GET', key))
end

local function recordHeader(r)
  return r.status .. '|' .. r.deliveries .. '|' .. r.token .. '|' .. r.created .. '|' .. r.started .. '|' .. r.finished
end

local function withHeader(r)
  return recordHeader(r) .. string.sub(r.value, r.n1)
end

local function withLines(r, err, result)
  return recordHeader(r) .. string.sub(r.value, r.n1, r.n2) .. err .. '\n' .. result .. string.sub(r.value, r.n4)
end

local function withProgress(r, progress)
  return recordHeader(r) .. '\n' .. progress .. string.sub(r.value, r.n2)
end

local function resultLine(r)
  return string.sub(r.value, r.n3 + 1, r.n4 - 1)
end

-- Deliveries as text, incremented without a sprintf per task: one per distinct count per call.
local COUNTS = {}
local function nextCount(text)
  local next = COUNTS[text]
  if not next then
    next = tostring(tonumber(text) + 1)
    COUNTS[text] = next
  end
  return next
end
