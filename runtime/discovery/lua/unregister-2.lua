--[[
  Removes a registration and its index entries (graceful shutdown).

  Input:
    KEYS[1]      the record hash, manifold:v1:{<ns>}:registry:component:<id>
    KEYS[2]      the `all` index set

    ARGV[1]      the component id

  Output:
    1 when a record was removed, 0 when there was none (already expired or never registered)

  The other index sets are read from the record's `indexes` field (same hash tag, same slot). For an
  expired record they are unknown here; lookups drop those stale members when they meet them.
]]
local indexes = redis.call('HGET', KEYS[1], 'indexes')
if indexes then
  for key in string.gmatch(indexes, '[^\n]+') do redis.call('SREM', key, ARGV[1]) end
end
redis.call('SREM', KEYS[2], ARGV[1])
return redis.call('DEL', KEYS[1])
