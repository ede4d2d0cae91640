--[[
  Records a running task's progress, only for its lease holder.

  Input:
    KEYS[1]      the record, manifold:v1:<ns>:{tasks:<queue>}:task:<id>

    ARGV[1]      lease token
    ARGV[2]      progress JSON

  Output:
    'ok' | 'lost' | 'cancelled'
]]
--- @include "includes/lease"

local record = readRecord(KEYS[1])
local answer = leaseCheck(record, ARGV[1])
if answer ~= 'ok' then return answer end
redis.call('SET', KEYS[1], withProgress(record, ARGV[2]))
return 'ok'
