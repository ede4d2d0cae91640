--[[
  Writes a component's full registration and (re)starts its TTL. Registration and heartbeat are the
  same call, so a Redis that lost its data (a restart) is repopulated by each component's next beat.

  Input:
    KEYS[1]      the record hash, manifold:v1:{<ns>}:registry:component:<id>
    KEYS[2..n]   every index set the record belongs to (all, name:…, type:…, capability:…)

    ARGV[1]      the component id
    ARGV[2]      the record as JSON (registration, ttl_ms, heartbeat_ms)
    ARGV[3]      TTL in milliseconds

  Output:
    the server time in milliseconds (a decimal string), stored as the record's last_seen

  The record's `digest` field is the SHA-1 of its JSON: readers that parsed that JSON already keep
  their copy (lookup.lua). The record's `indexes` field lists KEYS[2..n]; index sets of an earlier registration that the record
  no longer belongs to lose the id. Those keys are read from the field rather than passed in: every
  registry key of a namespace carries the same hash tag, so they live in the script's slot.
]]
local time = redis.call('TIME')
-- Milliseconds as a decimal string: exact, whatever Lua's number formatting does.
local now = time[1] .. string.format('%03d', math.floor(tonumber(time[2]) / 1000))
local id = ARGV[1]
local ttl = tonumber(ARGV[3])

local wanted = {}
for i = 2, #KEYS do wanted[KEYS[i]] = true end
local previous = redis.call('HGET', KEYS[1], 'indexes')
if previous then
  for key in string.gmatch(previous, '[^\n]+') do
    if not wanted[key] then redis.call('SREM', key, id) end
  end
end

redis.call('HSET', KEYS[1], 'record', ARGV[2], 'last_seen', now, 'indexes', table.concat(KEYS, '\n', 2), 'digest', redis.sha1hex(ARGV[2]))
redis.call('PEXPIRE', KEYS[1], ttl)
for i = 2, #KEYS do
  redis.call('SADD', KEYS[i], id)
  -- An index set outlives its longest-lived member and then expires, so an abandoned namespace
  -- leaves nothing behind.
  if redis.call('PTTL', KEYS[i]) < ttl then redis.call('PEXPIRE', KEYS[i], ttl) end
end
return now
