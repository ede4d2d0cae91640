--[[
  Reads a task: its record and, while it runs, its lease state (the record keeps its queued header
  while running; includes/running-state).

  Input:
    KEYS[1]      the record, manifold:v1:<ns>:{tasks:<queue>}:task:<id>
    KEYS[2]      the running hash (id → lease state)

    ARGV[1]      the task id

  Output:
    false (no record) | { record } | { record, lease state }
]]
local value = redis.call('GET', KEYS[1])
if not value then return false end
local state = redis.call('HGET', KEYS[2], ARGV[1])
if state then return { value, state } end
return { value }
