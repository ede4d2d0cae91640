--[[
  One expiry pass: takes up to `limit` pending checkpoints whose expiry is at or before the caller's
  now off the expiry index and moves each by its default action. The pass is one script, so of
  several processors running at once each due checkpoint is moved by exactly one. An index entry
  whose record is gone (retention ended with no pass running) is dropped.

  Input:
    KEYS[1]      the expiry index, manifold:v1:<ns>:{checkpoints}:expiry (sorted set: pending id by expiry ms)
    KEYS[2]      the purge index, manifold:v1:<ns>:{checkpoints}:purge

    ARGV[1]      the record key prefix, manifold:v1:<ns>:{checkpoints}:cp: (same hash tag as KEYS)
    ARGV[2]      the status index prefix, manifold:v1:<ns>:{checkpoints}:status: (same hash tag)
    ARGV[3]      the caller's now, epoch ms
    ARGV[4]      most checkpoints moved
    ARGV[5]      the resolution, JSON
    ARGV[6]      retention, ms
    ARGV[7]      the table's row for a default of approve: from, ARGV[8] to
    ARGV[9]      the table's row for a default of reject: from, ARGV[10] to

  Output:
    { record after (HGETALL), … } one per checkpoint this pass moved, earliest expiry first
]]
--- @include "includes/move"

local moved = {}
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[3], 'LIMIT', 0, tonumber(ARGV[4]))
for _, id in ipairs(due) do
  local key = ARGV[1] .. id
  local status = redis.call('HGET', key, 'status')
  local byApprove = redis.call('HGET', key, 'default_action') == 'approve'
  local from, to = ARGV[9], ARGV[10]
  if byApprove then from, to = ARGV[7], ARGV[8] end
  if status == from then
    moved[#moved + 1] = moveTo(key, id, status, to, { 'resolution', ARGV[5] }, KEYS[1], KEYS[2], ARGV[2], tonumber(ARGV[6]))
  else
    redis.call('ZREM', KEYS[1], id)
  end
end
return moved
