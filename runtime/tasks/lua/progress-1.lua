--[[
  Records a running task's progress, only for its lease holder.

  Input:
    KEYS[1]      the record, manifold:v1:<ns>:{tasks:<queue>}:task:<id>

    ARGV[1]      lease token
    ARGV[2]      progress JSON

  Output:
    'ok' | 'lost' | 'cancelled'
]]
local record = redis.call('GET', KEYS[1])
if not record then return 'lost' end
local head, status, token, rest = string.match(record, '^((%a+)|%d+|([^|]*)|[^\n]*)\n[^\n]*\n(.*)$')
if status == 'cancelled' then return 'cancelled' end
if status ~= 'running' or token ~= ARGV[1] then return 'lost' end
redis.call('SET', KEYS[1], head .. '\n' .. ARGV[2] .. '\n' .. rest)
return 'ok'
