--[[
  Appends one model call to a request's LLM debug record, creating it: decode, append, recompute
  the status, cap, re-encode and set the TTL, all on one key, so concurrent appends to one request
  lose nothing (a read-modify-write from Node would). The indexes are updated by the caller, one
  key per command, so this works on Redis Cluster unchanged.

  Input:
    KEYS[1]      the record, manifold:v1:<ns>:llm-debug:<request_id> (a JSON string)

    ARGV[1]      request id
    ARGV[2]      original request id (kept from the first append)
    ARGV[3]      source component name
    ARGV[4]      the interaction, JSON (already checked and cut to size by the caller)
    ARGV[5]      '1' when the interaction failed, else '0'
    ARGV[6]      TTL in ms of a record whose calls all succeeded
    ARGV[7]      TTL in ms of a record with a failed call
    ARGV[8]      most interactions kept (the oldest are dropped and counted)
    ARGV[9]      most source components listed

  Output:
    { updated_at epoch ms, 'success' | 'error' }
]]
--- @include "../../../store/lua/includes/server-time"
--- @include "includes/iso-time"
--- @include "includes/load-record"

local now = serverTimeMs()
local record = loadRecord(KEYS[1], ARGV[1], ARGV[2], now)

local interactions = record.interactions
interactions[#interactions + 1] = cjson.decode(ARGV[4])
local over = #interactions - tonumber(ARGV[8])
if over > 0 then
  -- Rebuilt rather than table.remove'd one by one: one pass whatever the overflow.
  local kept = {}
  for i = over + 1, #interactions do kept[#kept + 1] = interactions[i] end
  record.interactions = kept
  record.dropped_interactions = (record.dropped_interactions or 0) + over
end

local components = record.source_components
local seen = false
for _, name in ipairs(components) do
  if name == ARGV[3] then seen = true break end
end
if not seen and #components < tonumber(ARGV[9]) then components[#components + 1] = ARGV[3] end

if ARGV[5] == '1' then record.status = 'error' end
record.updated_at = isoTime(now)

local ttl = record.status == 'error' and ARGV[7] or ARGV[6]
redis.call('SET', KEYS[1], cjson.encode(record), 'PX', ttl)
return { now, record.status }
