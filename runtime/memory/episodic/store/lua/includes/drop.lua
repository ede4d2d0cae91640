--[[
  Include: removing one episode or one knowledge fragment with every index entry that names it.
  An episode's hash keeps its entities' key digests (`ents`), so the entity indexes are found
  without decoding its JSON; a record whose key already expired leaves only index entries, dropped
  here all the same.

  Input:
    KEYS[1..n]   not read (the functions take key names; all share the domain's hash tag)

  Output:
    defines dropEpisode(id, idx, unreflected, leases, epPrefix, entPrefix)
    and dropFragment(id, kidx, knPrefix, kentPrefix)
]]
local function dropEpisode(id, idx, unreflected, leases, epPrefix, entPrefix)
  local key = epPrefix .. id
  local ents = redis.call('HGET', key, 'ents')
  if ents then
    for digest in string.gmatch(ents, '%S+') do redis.call('ZREM', entPrefix .. digest, id) end
  end
  redis.call('DEL', key)
  redis.call('ZREM', idx, id)
  redis.call('ZREM', unreflected, id)
  redis.call('ZREM', leases, id)
end

local function dropFragment(id, kidx, knPrefix, kentPrefix)
  local key = knPrefix .. id
  local ent = redis.call('HGET', key, 'ent')
  if ent then redis.call('ZREM', kentPrefix .. ent, id) end
  redis.call('DEL', key)
  redis.call('ZREM', kidx, id)
end
