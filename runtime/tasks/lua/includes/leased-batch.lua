--[[
  Include: the loop of the batched lease-holder writes (extend, finish). A worker pays one round trip
  for all its tasks, the records are read with one MGET, and each group gets its own answer, so one
  lost lease never fails the others.

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
  local keys = {}
  for i = 3, #ARGV, stride do keys[#keys + 1] = ARGV[1] .. ARGV[i] end
  if #keys == 0 then return answers, applied end
  local values = redis.call('MGET', unpack(keys))
  for j = 1, #keys do
    local i = 3 + (j - 1) * stride
    local record = decodeRecord(values[j])
    local answer = leaseCheck(record, ARGV[i + 1])
    if answer == 'ok' then
      apply(ARGV[i], keys[j], record, i)
      applied[#applied + 1] = ARGV[i]
    end
    answers[#answers + 1] = answer
  end
  return answers, applied
end
