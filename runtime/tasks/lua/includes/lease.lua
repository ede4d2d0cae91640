--[[
  Include: who may write to a task. Only the holder of the current lease of a running task; a
  redelivery issues a new token, so a worker whose lease lapsed (a zombie) is refused.

  Input:
    KEYS[1..n]   not read (an include sees the including script's KEYS and ARGV and reads neither)

  Output:
    defines leaseCheck(record, token) → 'ok' (the holder) | 'cancelled' (the worker must abort) |
    'lost' (no record, not running, or running under another token)
]]
--- @include "task-record"

local function leaseCheck(record, token)
  if not record then return 'lost' end
  if record.status == 'cancelled' then return 'cancelled' end
  if record.status ~= 'running' or record.token ~= token then return 'lost' end
  return 'ok'
end
