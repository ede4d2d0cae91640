--[[
  Include: the loop of the batched lease-holder writes (extend, finish). A worker pays one round trip
  for all its tasks, and each group gets its own answer, so one lost lease never fails the others.

  Input:
    KEYS[1..n]   not read (an include sees the including script's KEYS and ARGV)
    ARGV[1]      read: the record key prefix
    ARGV[3..]    read: groups of `stride` values, each starting with task id, lease token

  Output:
    defines leasedBatch(stride, apply, answers?) → answers, applied: leaseCheck's answer per group,
    appended to `answers` (default empty); for each group whose lease holds, apply(id, key, record, i)
    is called (i: the group's first ARGV index) and the id collected in `applied`
]]
--- @include "lease"

local function leasedBatch(stride, apply, answers)
  answers = answers or {}
  local applied = {}
  for i = 3, #ARGV, stride do
    local id = ARGV[i]
    local key = ARGV[1] .. id
    local record = readRecord(key)
    local answer = leaseCheck(record, ARGV[i + 1])
    if answer == 'ok' then
      apply(id, key, record, i)
      applied[#applied + 1] = id
    end
    answers[#answers + 1] = answer
  end
  return answers, applied
end
