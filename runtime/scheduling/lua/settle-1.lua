--[[
  Ends a claimed run, only for the delivery that holds the claim (its token): done (kept for the
  dedupe window) or released (deleted, so a retry runs it).

  Input:
    KEYS[1]      the run's claim, manifold:v1:<ns>:scheduled:runs:<idempotency key>

    ARGV[1]      the holder's value, 'r:<token>'
    ARGV[2]      'done' | 'release'
    ARGV[3]      how long a done claim is kept, ms

  Output:
    1 when the holder's claim was settled, 0 when it was not held (expired or another's)
]]
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if ARGV[2] == 'done' then
  redis.call('SET', KEYS[1], 'd', 'PX', ARGV[3])
else
  redis.call('DEL', KEYS[1])
end
return 1
