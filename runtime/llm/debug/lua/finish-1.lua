--[[
  Marks how a request ended on its LLM debug record, creating the record when no call was recorded
  yet: decode, set `final` (with the server's time), turn the record to 'error' when the answer was
  one, re-encode and restart the TTL, all on one key, so a concurrent append loses nothing. The
  indexes are updated by the caller, one key per command, so this works on Redis Cluster unchanged.

  Input:
    KEYS[1]      the record, manifold:v1:<ns>:llm-debug:<request_id> (a JSON string)

    ARGV[1]      request id
    ARGV[2]      original request id (used only when the record is created)
    ARGV[3]      the final outcome, JSON (already checked by the caller), without `at`
    ARGV[4]      '1' when the answer was an error (HTTP status 400 or more), else '0'
    ARGV[5]      TTL in ms of a record whose calls all succeeded
    ARGV[6]      TTL in ms of a record with a failed call

  Output:
    { updated_at epoch ms, 'success' | 'error' }
]]
--- @include "../../../store/lua/includes/server-time"
--- @include "includes/iso-time"
--- @include "includes/load-record"

local now = serverTimeMs()
local record = loadRecord(KEYS[1], ARGV[1], ARGV[2], now)

local final = cjson.decode(ARGV[3])
final.at = isoTime(now)
record.final = final
if ARGV[4] == '1' then record.status = 'error' end
record.updated_at = isoTime(now)

local ttl = record.status == 'error' and ARGV[6] or ARGV[5]
redis.call('SET', KEYS[1], cjson.encode(record), 'PX', ttl)
return { now, record.status }
