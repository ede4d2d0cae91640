--[[
  The resume claim, one compare-and-set: an approved (or expired and approved by default)
  checkpoint becomes resumed, once. Of two racing claims the first to run wins and runs the resume;
  the other finds it resumed. The status it was claimed from is kept (`resumed_from`): a release
  (release-3.lua) returns it there.

  Input:
    KEYS[1]      the record, manifold:v1:<ns>:{checkpoints}:cp:<id> (hash)
    KEYS[2]      the expiry index, manifold:v1:<ns>:{checkpoints}:expiry
    KEYS[3]      the purge index, manifold:v1:<ns>:{checkpoints}:purge

    ARGV[1]      the checkpoint id
    ARGV[2]      the status index prefix, manifold:v1:<ns>:{checkpoints}:status: (same hash tag as KEYS)
    ARGV[3]      resumed_at, ISO 8601 (the caller's now)
    ARGV[4]      retention, ms
    ARGV[5..]    the table's rows for resume: from, to, from, to, …

  Output:
    { 'ok', record after (HGETALL) } | { 'refused', status } | { 'not_found' }
]]
--- @include "includes/row"
--- @include "includes/move"

local status = redis.call('HGET', KEYS[1], 'status')
if not status then return { 'not_found' } end
local to = targetOf(status, 5)
if not to then return { 'refused', status } end
return { 'ok', moveTo(KEYS[1], ARGV[1], status, to, { 'resumed_at', ARGV[3], 'resumed_from', status }, KEYS[2], KEYS[3], ARGV[2], tonumber(ARGV[4])) }
