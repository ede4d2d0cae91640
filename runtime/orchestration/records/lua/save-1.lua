--[[
  Saves an execution record one revision past the record it replaces (1 when there is none), so two
  replicas saving the same plan id (a run and its resumption) never write the same revision. The
  record's JSON is not decoded here (cjson would turn empty arrays into objects and round numbers):
  the caller writes it with `"revision":0` as its first member, and only that member is rewritten.

  Input:
    KEYS[1]      the record, manifold:v1:<ns>:executions:<plan_id> (a JSON string)

    ARGV[1]      the record, JSON, starting with {"revision":0,
    ARGV[2]      TTL in ms

  Output:
    the revision written
]]
local PREFIX = '{"revision":0,'
local earlier = redis.call('GET', KEYS[1])
local revision = 1
if earlier then
  local found = string.match(earlier, '^{"revision":(%d+),')
  if found then revision = tonumber(found) + 1 else revision = 2 end
end
local text = ARGV[1]
if string.sub(text, 1, #PREFIX) ~= PREFIX then
  return redis.error_reply('ERR execution record must start with ' .. PREFIX)
end
redis.call('SET', KEYS[1], '{"revision":' .. revision .. ',' .. string.sub(text, #PREFIX + 1), 'PX', ARGV[2])
return revision
