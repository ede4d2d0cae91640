--[[
  Stores a new pending checkpoint and indexes it, refusing a taken id. Every key shares the
  {checkpoints} hash tag. The record expires on its own at its expiry plus retention, so even with
  no expiry pass running nothing stays forever.

  Input:
    KEYS[1]      the record, manifold:v1:<ns>:{checkpoints}:cp:<id> (hash)
    KEYS[2]      the expiry index, manifold:v1:<ns>:{checkpoints}:expiry (sorted set: pending id by expiry ms)
    KEYS[3]      the list index, manifold:v1:<ns>:{checkpoints}:all (sorted set, lexicographic: <created ms>:<id>)
    KEYS[4]      the pending list index, manifold:v1:<ns>:{checkpoints}:status:pending (the same, pending only)
    KEYS[5]      the purge index, manifold:v1:<ns>:{checkpoints}:purge (sorted set: list member by purge ms)

    ARGV[1]      the checkpoint id
    ARGV[2]      the checkpoint without its status and decision fields, JSON (never decoded here)
    ARGV[3]      expiry, epoch ms
    ARGV[4]      the default action, approve | reject
    ARGV[5]      the list member, <created ms, 15 digits>:<id>
    ARGV[6]      the record's lifetime, ms: (expiry - creation) + retention

  Output:
    'OK' | 'EXISTS'
]]
--- @include "../../../store/lua/includes/server-time"

if redis.call('EXISTS', KEYS[1]) == 1 then return 'EXISTS' end
redis.call('HSET', KEYS[1], 'body', ARGV[2], 'status', 'pending', 'expires_ms', ARGV[3], 'default_action', ARGV[4], 'member', ARGV[5])
redis.call('PEXPIRE', KEYS[1], ARGV[6])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
redis.call('ZADD', KEYS[3], 0, ARGV[5])
redis.call('ZADD', KEYS[4], 0, ARGV[5])
redis.call('ZADD', KEYS[5], serverTimeMs() + tonumber(ARGV[6]), ARGV[5])
return 'OK'
