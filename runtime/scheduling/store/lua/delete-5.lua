--[[
  Removes a schedule: its definition, fire state and index entries.

  Input:
    KEYS[1]      definitions, manifold:v1:<ns>:{schedules}:defs
    KEYS[2]      fire counts, manifold:v1:<ns>:{schedules}:fire-count (hash: id -> n)
    KEYS[3]      last fire times, manifold:v1:<ns>:{schedules}:last-fired (hash: id -> ISO 8601)
    KEYS[4]      due index, manifold:v1:<ns>:{schedules}:due
    KEYS[5]      the agent's index, manifold:v1:<ns>:{schedules}:agent:<target_agent>

    ARGV[1]      schedule id

  Output:
    1 when removed, 0 when there was none
]]
--- @include "includes/remove"

if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return 0 end
removeSchedule(ARGV[1], KEYS[5])
return 1
