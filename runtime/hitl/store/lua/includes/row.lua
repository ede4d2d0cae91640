--[[
  Include: a lookup in the transition table rows the caller passed (CHECKPOINT_TRANSITIONS in
  runtime/hitl/store/types.ts is the one source; scripts hold no copy of it).

  Input:
    KEYS[1..n]   not read (the function takes its arguments)

  Output:
    defines targetOf(status, first) → the status ARGV's rows move `status` to, or nil when no row
    starts from it; the rows are ARGV[first], ARGV[first + 1], … as pairs: from, to, from, to, …
]]
local function targetOf(status, first)
  for i = first, #ARGV - 1, 2 do
    if ARGV[i] == status then return ARGV[i + 1] end
  end
  return nil
end
