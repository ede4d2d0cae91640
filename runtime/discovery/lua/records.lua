--[[
  Registrations by record key, each with the digest it is known by (lookup.lua), in one round trip.

  Input:
    KEYS[1..n]   record hashes, manifold:v1:{<ns>}:registry:component:<id> (one hash tag)

  Output:
    { record JSON, last_seen ms, digest, … } per key, in KEYS order; nil, nil, nil for a record that
    is gone (expired or unregistered since it was listed)

  A record written before records carried a digest gets the SHA-1 of its JSON, the one register.lua stores.
]]
local out = {}
for i = 1, #KEYS do
  local fields = redis.call('HMGET', KEYS[i], 'record', 'last_seen', 'digest')
  local base = (i - 1) * 3
  out[base + 1] = fields[1]
  out[base + 2] = fields[2]
  if fields[1] and not fields[3] then out[base + 3] = redis.sha1hex(fields[1]) else out[base + 3] = fields[3] end
end
return out
