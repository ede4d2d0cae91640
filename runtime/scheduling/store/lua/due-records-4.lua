--[[
  The firing loop's read: the schedules due at or before now, earliest first (ties by id), with
  their definitions and fire state, in one step, so a record and its due time cannot disagree.
  Read-only; definitions are returned as stored, never decoded here.

  Input:
    KEYS[1]      due index, manifold:v1:<ns>:{schedules}:due (sorted set: id by due ms)
    KEYS[2]      definitions, manifold:v1:<ns>:{schedules}:defs (hash: id -> JSON)
    KEYS[3]      fire counts, manifold:v1:<ns>:{schedules}:fire-count (hash: id -> n)
    KEYS[4]      last fire times, manifold:v1:<ns>:{schedules}:last-fired (hash: id -> ISO 8601)

    ARGV[1]      now, epoch ms
    ARGV[2]      most schedules to return (the caller keeps it at 1,000 or less)

  Output:
    { id, due ms, definition JSON, fire count or '', last fire time or '', ... } per due schedule
    (five values each); an id whose definition is missing is left out
]]
local found = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'WITHSCORES', 'LIMIT', 0, tonumber(ARGV[2]))
local out = {}
if #found == 0 then return out end
local ids = {}
for i = 1, #found, 2 do ids[#ids + 1] = found[i] end
local definitions = redis.call('HMGET', KEYS[2], unpack(ids))
local counts = redis.call('HMGET', KEYS[3], unpack(ids))
local lasts = redis.call('HMGET', KEYS[4], unpack(ids))
for i, id in ipairs(ids) do
  if definitions[i] then
    out[#out + 1] = id
    out[#out + 1] = found[2 * i]
    out[#out + 1] = definitions[i]
    out[#out + 1] = counts[i] or ''
    out[#out + 1] = lasts[i] or ''
  end
end
return out
