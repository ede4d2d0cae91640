--[[
  Claims one scheduled run for a delivery: the first delivery of an idempotency key holds it while
  it runs; a later one learns that the run is in progress or done. One step, so two deliveries
  racing (two replicas of the agent) cannot both claim it.

  Input:
    KEYS[1]      the run's claim, manifold:v1:<ns>:scheduled:runs:<idempotency key>

    ARGV[1]      the claim's value while it runs, 'r:<token>'
    ARGV[2]      how long a running claim lives, ms (a replica that dies mid-run frees it then)

  Output:
    'claimed' | 'running' | 'done'

  A claim already holding ARGV[1] is this delivery's own: the client sent the script again after a
  reconnection (the first run applied, its answer lost), so it is 'claimed', not another's 'running'.
]]
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 'claimed' end
local held = redis.call('GET', KEYS[1])
if held == 'd' then return 'done' end
if held == ARGV[1] then return 'claimed' end
return 'running'
