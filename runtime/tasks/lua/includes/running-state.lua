--[[
  Include: who holds a running task. Taking a task does not rewrite its record (which keeps the header
  it had while queued); the lease lives beside it, in the running hash: task id → the lease's state,
    <token prefix>|<deliveries>|<started>
  where the token prefix is unique per dequeue call, so one state string is shared by every first
  delivery of a call. The worker's lease token is the state followed by the task id; a write sends
  the state part, and holds the lease iff it equals the stored one (Lua strings are interned: one
  pointer comparison, no parsing). A redelivery stores a new state, so a zombie's writes are refused.
  Once the holder writes progress, the stored state is marked with a trailing '+' (the record then
  differs from the one its dequeue returned, which the finish needs to know, see finish-2.lua); the
  holder's writes still compare their state against it, with and without the mark.

  Input:
    KEYS[1..n]   not read (an include sees the including script's KEYS and ARGV and reads neither)

  Output:
    defines holds(stored, state) → whether the stored lease state (or its progressed mark) is `state`,
    stateFields(state) → { deliveries, started } (text, parsed once per distinct state per call),
    asRunning(record, state) → the record as it stands while `state` holds it (running, its
    deliveries and first start), refusal(key) → why a write without the lease is refused: 'cancelled'
    (the worker must abort) | 'lost' (no record, finished, or running under another lease)
]]
--- @include "task-record"

-- The mark is concatenated only when the plain comparison fails (rare: progress written, or refused).
local function holds(stored, state)
  return stored and (stored == state or stored == state .. '+')
end

local STATES = {}
local function stateFields(state)
  local fields = STATES[state]
  if not fields then
    local deliveries, started = string.match(state, '|(%d+)|(%d*)%+?$')
    fields = { deliveries = deliveries or '0', started = started or '' }
    STATES[state] = fields
  end
  return fields
end

local function asRunning(record, state)
  local fields = stateFields(state)
  record.status = 'running'
  record.deliveries = fields.deliveries
  record.started = fields.started
  return record
end

local function refusal(key)
  local record = readRecord(key)
  if record and record.status == 'cancelled' then return 'cancelled' end
  return 'lost'
end
