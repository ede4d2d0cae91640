--[[
  Include: the loop of the batched lease-holder writes (extend, finish). A worker pays one round trip
  for all its tasks, the lease states are read with one HMGET (no record is read to check a lease),
  and each group gets its own answer, so one lost lease never fails the others.

  Input:
    KEYS[1..n]   not read (an include sees the including script's KEYS and ARGV)
    ARGV[1]      read: the record key prefix
    ARGV[3..]    read: groups of `stride` values, each starting with task id, lease state (the token
                 without its task id)

  Output:
    defines leasedBatch(runningKey, stride, apply, answers?) → answers, applied: per group 'ok', or
    refusal()'s answer, appended to `answers` (default empty); for each group whose lease holds,
    apply(id, state, i, j) is called (i: the group's first ARGV index, j: its answer's index) and the
    id collected in `applied`
]]
--- @include "running-state"

local function leasedBatch(runningKey, stride, apply, answers)
  answers = answers or {}
  local applied, ids = {}, {}
  for i = 3, #ARGV, stride do ids[#ids + 1] = ARGV[i] end
  if #ids == 0 then return answers, applied end
  local held = redis.call('HMGET', runningKey, unpack(ids))
  for j = 1, #ids do
    local i = 3 + (j - 1) * stride
    local state = held[j]
    answers[#answers + 1] = 'ok'
    if holds(state, ARGV[i + 1]) then
      apply(ids[j], state, i, #answers)
      applied[#applied + 1] = ids[j]
    else
      answers[#answers] = refusal(ARGV[1] .. ids[j])
    end
  end
  return answers, applied
end
