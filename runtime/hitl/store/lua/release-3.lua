--[[
  Releases a resume claim whose run never reached the approved step, one compare-and-set: only a
  `resumed` record (a status the table's release rows start from) whose `attempts` is still the
  claimer's moves, so a claim is released once. It returns to the status it was claimed from
  (`resumed_from`: approved or expired_approved) with `attempts` one more, or to the table's `fail`
  target once attempts reach the cap. `resumed_at` goes with the failed claim.

  Input:
    KEYS[1]      the record, manifold:v1:<ns>:{checkpoints}:cp:<id> (hash)
    KEYS[2]      the expiry index, manifold:v1:<ns>:{checkpoints}:expiry
    KEYS[3]      the purge index, manifold:v1:<ns>:{checkpoints}:purge

    ARGV[1]      the checkpoint id
    ARGV[2]      the status index prefix, manifold:v1:<ns>:{checkpoints}:status: (same hash tag as KEYS)
    ARGV[3]      the claimer's attempts (the record's `attempts` when it claimed; 0 when absent)
    ARGV[4]      the cap: at this many attempts the checkpoint fails
    ARGV[5]      retention, ms
    ARGV[6]      the table's fail row: from, ARGV[7] to
    ARGV[8..]    the table's rows for release: from, to, … (the target is `resumed_from`, not the row's)

  Output:
    { 'ok', record after (HGETALL) } | { 'refused', status } | { 'stale', status, attempts } | { 'not_found' }
]]
--- @include "includes/row"
--- @include "includes/move"

local status = redis.call('HGET', KEYS[1], 'status')
if not status then return { 'not_found' } end
if not targetOf(status, 8) then return { 'refused', status } end
local attempts = tonumber(redis.call('HGET', KEYS[1], 'attempts') or '0')
if attempts ~= tonumber(ARGV[3]) then return { 'stale', status, tostring(attempts) } end
attempts = attempts + 1
local to = redis.call('HGET', KEYS[1], 'resumed_from') or 'approved'
if attempts >= tonumber(ARGV[4]) then to = ARGV[7] end
redis.call('HDEL', KEYS[1], 'resumed_at')
return { 'ok', moveTo(KEYS[1], ARGV[1], status, to, { 'attempts', tostring(attempts) }, KEYS[2], KEYS[3], ARGV[2], tonumber(ARGV[5])) }
