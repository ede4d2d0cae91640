--[[
  One sweep step: deletes up to `limit` episodes, then fragments, created before the bound, with
  their index entries. Deleting what is already gone changes nothing, so every replica may sweep.

  Input:
    KEYS[1]      the domain's index, manifold:v1:<ns>:{episodes:<domain>}:idx (sorted set, lex ids)
    KEYS[2]      unreflected episodes, …:unreflected
    KEYS[3]      claims' leases, …:leases
    KEYS[4]      the knowledge index, …:kidx

    ARGV[1]      the bound: the 13-digit ms every deleted id is below
    ARGV[2]      most records deleted
    ARGV[3]      the episode key prefix, …:ep: (same hash tag)
    ARGV[4]      the entity index prefix, …:ent:
    ARGV[5]      the fragment key prefix, …:kn:
    ARGV[6]      the entity knowledge index prefix, …:kent:

  Output:
    the number of records deleted
]]
--- @include "includes/drop"

local limit = tonumber(ARGV[2])
local deleted = 0
for _, id in ipairs(redis.call('ZRANGE', KEYS[1], '-', '(' .. ARGV[1], 'BYLEX', 'LIMIT', 0, limit)) do
  dropEpisode(id, KEYS[1], KEYS[2], KEYS[3], ARGV[3], ARGV[4])
  deleted = deleted + 1
end
if deleted < limit then
  for _, id in ipairs(redis.call('ZRANGE', KEYS[4], '-', '(' .. ARGV[1], 'BYLEX', 'LIMIT', 0, limit - deleted)) do
    dropFragment(id, KEYS[4], ARGV[5], ARGV[6])
    deleted = deleted + 1
  end
end
return deleted
