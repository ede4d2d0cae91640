--[[
  Counts a skill into the registry's index before its first version is written: the namespace into
  the list of namespaces and the name into its namespace's set, each within its bound. A skill already
  indexed passes whatever the bounds (republishing never fails on them). Both keys carry the store
  namespace's hash tag, so the bounds are checked and the sets written in one step on a Cluster too.

  Input:
    KEYS[1]      the namespaces, manifold:v1:{<ns>}:skills:namespaces (set)
    KEYS[2]      the namespace's skills, manifold:v1:{<ns>}:skills:index:<namespace> (set of names)

    ARGV[1]      the skill's namespace
    ARGV[2]      the skill's name
    ARGV[3]      most namespaces
    ARGV[4]      most skills of one namespace

  Output:
    'ok' | 'namespaces' (the namespace would be one too many) | 'skills' (the name would be one too many)
]]
if redis.call('SISMEMBER', KEYS[2], ARGV[2]) == 1 then return 'ok' end
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 0 and redis.call('SCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 'namespaces' end
if redis.call('SCARD', KEYS[2]) >= tonumber(ARGV[4]) then return 'skills' end
redis.call('SADD', KEYS[1], ARGV[1])
redis.call('SADD', KEYS[2], ARGV[2])
return 'ok'
