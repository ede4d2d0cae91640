--[[
  Records a running task's progress, only for its lease holder, and marks its lease state as
  progressed (a trailing '+', includes/running-state), so its finish reads the stored record.

  Input:
    KEYS[1]      the record, manifold:v1:<ns>:{tasks:<queue>}:task:<id>
    KEYS[2]      the running hash (id → lease state, includes/running-state)

    ARGV[1]      the task id
    ARGV[2]      lease state
    ARGV[3]      progress JSON

  Output:
    'ok' | 'lost' | 'cancelled'
]]
--- @include "includes/running-state"

local state = redis.call('HGET', KEYS[2], ARGV[1])
if not holds(state, ARGV[2]) then return refusal(KEYS[1]) end
local record = readRecord(KEYS[1])
if not record then return 'lost' end
redis.call('SET', KEYS[1], withProgress(record, ARGV[3]))
-- Marked: the finish must read this record, not build it from the one its dequeue returned.
if state == ARGV[2] then redis.call('HSET', KEYS[2], ARGV[1], state .. '+') end
return 'ok'
