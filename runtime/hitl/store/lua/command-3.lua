--[[
  A human's command (approve or reject), one compare-and-set: it applies only when the record's
  status starts one of the table rows given for this command, and only before the checkpoint's
  expiry (past it the default action owns the checkpoint, whether or not an expiry pass ran). Of two
  racing commands the first to run wins; the other finds the status it left.

  Input:
    KEYS[1]      the record, manifold:v1:<ns>:{checkpoints}:cp:<id> (hash)
    KEYS[2]      the expiry index, manifold:v1:<ns>:{checkpoints}:expiry
    KEYS[3]      the purge index, manifold:v1:<ns>:{checkpoints}:purge

    ARGV[1]      the checkpoint id
    ARGV[2]      the status index prefix, manifold:v1:<ns>:{checkpoints}:status: (same hash tag as KEYS)
    ARGV[3]      the caller's now, epoch ms
    ARGV[4]      the resolution, JSON
    ARGV[5]      retention, ms
    ARGV[6..]    the table's rows for this command: from, to, from, to, …

  Output:
    { 'ok', record after (HGETALL) } | { 'refused', status } | { 'late', status, expiry ms } | { 'not_found' }
]]
--- @include "includes/row"
--- @include "includes/move"

local status = redis.call('HGET', KEYS[1], 'status')
if not status then return { 'not_found' } end
local to = targetOf(status, 6)
if not to then return { 'refused', status } end
local expires = redis.call('HGET', KEYS[1], 'expires_ms')
if tonumber(ARGV[3]) >= tonumber(expires) then return { 'late', status, expires } end
return { 'ok', moveTo(KEYS[1], ARGV[1], status, to, { 'resolution', ARGV[4] }, KEYS[2], KEYS[3], ARGV[2], tonumber(ARGV[5])) }
