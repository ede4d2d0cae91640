--[[
  Deletes a session and says whose it was, so exactly one of two racing deletes gets the user id
  (and removes the index entry and decrements the counter).

  Input:
    KEYS[1]      the session, manifold:v1:<ns>:sessions:<id>

  Output:
    the session's user_id, or false when the session does not exist
]]
local user = redis.call('HGET', KEYS[1], 'user_id')
if not user then return false end
redis.call('DEL', KEYS[1])
return user
