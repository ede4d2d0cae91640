--[[
  Include: a request's debug record as stored, or a new empty one (append-1 and finish-1 both start
  from it, so a record is created the same way whichever comes first).

  Input:
    KEYS[1..n]   not read (an include sees the including script's KEYS and ARGV and reads neither)

  Output:
    defines loadRecord(key, requestId, originalRequestId, nowMs) → the decoded record (needs isoTime)
]]
local function loadRecord(key, requestId, originalRequestId, nowMs)
  local text = redis.call('GET', key)
  if text then return cjson.decode(text) end
  return {
    request_id = requestId,
    original_request_id = originalRequestId,
    source_components = {},
    interactions = {},
    status = 'success',
    created_at = isoTime(nowMs),
  }
end
