--[[
  Ends retention: for up to `limit` entries of the purge index whose time has come (server clock,
  the one that expires the record keys), deletes the record if its TTL has not already, and drops
  its entries from every index, so indexes never outgrow the records they point at.

  Input:
    KEYS[1]      the purge index, manifold:v1:<ns>:{checkpoints}:purge (sorted set: list member by purge ms)
    KEYS[2]      the expiry index, manifold:v1:<ns>:{checkpoints}:expiry
    KEYS[3]      the list index, manifold:v1:<ns>:{checkpoints}:all

    ARGV[1]      the record key prefix, manifold:v1:<ns>:{checkpoints}:cp: (same hash tag as KEYS)
    ARGV[2]      the status index prefix, manifold:v1:<ns>:{checkpoints}:status: (same hash tag)
    ARGV[3]      most entries purged
    ARGV[4..]    every status (one per-status index each)

  Output:
    the number of checkpoints purged
]]
--- @include "../../../store/lua/includes/server-time"

local ended = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', serverTimeMs(), 'LIMIT', 0, tonumber(ARGV[3]))
for _, member in ipairs(ended) do
  -- A member is <created ms, 15 digits>:<id>.
  local id = string.sub(member, 17)
  redis.call('DEL', ARGV[1] .. id)
  redis.call('ZREM', KEYS[2], id)
  redis.call('ZREM', KEYS[3], member)
  for i = 4, #ARGV do redis.call('ZREM', ARGV[2] .. ARGV[i], member) end
  redis.call('ZREM', KEYS[1], member)
end
return #ended
