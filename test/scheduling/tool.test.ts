/**
 * The scheduler tool's five capabilities over HTTP (serveScheduler on the embedded store, the
 * executor off), behind a trusted gateway (`trustIdentityHeaders`, so the caller's
 * X-Manifold-Agent-Name is the target; test/trust/identity-ownership.test.ts covers agent tokens),
 * each mistake is a clear envelope, and an agent's generated client sends its name by itself.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { TravelAgent } from "../../generated/travel-agent/index.js";
import { createMemoryRegistry } from "../../runtime/discovery/index.js";
import { isScheduleId, serveScheduler, type RunningScheduler } from "../../runtime/scheduling/index.js";
import { registration } from "../contract/registry.cases.js";

interface Context {
  scheduler: RunningScheduler;
}
const test = suite<Context>("scheduler tool", {} as Context);

test.before(async (context) => {
  context.scheduler = await serveScheduler({
    port: 0,
    registry: false,
    handleSignals: false,
    log: () => undefined,
    executor: false,
    tickMs: 60_000,
    auth: { required: false, trustIdentityHeaders: true },
  });
});
test.after(async ({ scheduler }) => {
  await scheduler.close();
});

/** `agent` null sends no X-Manifold-Agent-Name. */
async function call(scheduler: RunningScheduler, capability: string, body: unknown, agent: string | null = "travel-agent") {
  const response = await fetch(`${scheduler.url}/api/capabilities/${capability}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(agent === null ? {} : { "x-manifold-agent-name": agent }) },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

test("schedule_task stores a schedule for the calling agent, whatever the body says", async ({ scheduler }) => {
  const before = Date.now();
  const { status, body } = await call(scheduler, "schedule_task", {
    delay: "1h",
    instruction: "brief",
    input: { destination: "Kyoto" },
    target_agent: "someone-else",
  });
  assert.is(status, 200, JSON.stringify(body));
  assert.ok(isScheduleId(body["schedule_id"]));
  assert.is(body["target_agent"], "travel-agent");
  assert.is(body["recurring"], false);
  const next = Date.parse(body["next_run_at"]);
  assert.ok(next >= before + 3_600_000 && next <= Date.now() + 3_600_000);
  const got = await call(scheduler, "get_schedule", { schedule_id: body["schedule_id"] });
  assert.equal(got.body, body);
});

test("mistakes are envelopes: two timing forms, a bad cron, a past run_at, no caller, unknown ids", async ({ scheduler }) => {
  const two = await call(scheduler, "schedule_task", { delay: "1m", run_at: "2031-01-01T00:00:00Z" });
  assert.is(two.status, 400);
  assert.is(two.body["error"].code, "INVALID_INPUT");
  assert.match(two.body["error"].message, /exactly one timing form/);
  const cron = await call(scheduler, "schedule_task", { cron_expr: "99 * * * *" });
  assert.equal([cron.status, cron.body["error"].details[0].pointer], [400, "/cron_expr"]);
  const past = await call(scheduler, "schedule_task", { run_at: "2001-01-01T00:00:00Z" });
  assert.match(past.body["error"].message, /in the past/);
  const anonymous = await call(scheduler, "schedule_task", { delay: "1m" }, null);
  assert.equal([anonymous.status, anonymous.body["error"].code], [401, "UNAUTHORIZED"], "no caller: no agent to own the schedule");
  assert.match(anonymous.body["error"].message, /X-Manifold-Agent-Name/);
  for (const capability of ["get_schedule", "cancel_schedule", "update_schedule"]) {
    const missing = await call(scheduler, capability, { schedule_id: "sch-0000000000000000" });
    assert.equal([missing.status, missing.body["error"].code], [404, "NOT_FOUND"], capability);
  }
});

test("list, update and cancel see only the caller's schedules", async ({ scheduler }) => {
  const mine = (await call(scheduler, "schedule_task", { cron_expr: "0 9 * * *", timezone: "Asia/Tokyo", instruction: "daily" })).body;
  const theirs = (await call(scheduler, "schedule_task", { delay: "2h" }, "other-agent")).body;
  const listed = (await call(scheduler, "list_schedules", {})).body["schedules"] as { schedule_id: string; target_agent: string }[];
  assert.ok(listed.some((s) => s.schedule_id === mine["schedule_id"]));
  assert.ok(listed.every((s) => s.target_agent === "travel-agent"));
  assert.is((await call(scheduler, "cancel_schedule", { schedule_id: theirs["schedule_id"] })).status, 404, "not the caller's");
  const moved = await call(scheduler, "update_schedule", { schedule_id: mine["schedule_id"], cron_expr: "30 18 * * *" });
  assert.is(moved.status, 200);
  assert.is(moved.body["cron_expr"], "30 18 * * *");
  assert.is(moved.body["timezone"], undefined, "a new timing replaces the old one whole");
  assert.match(moved.body["next_run_at"], /T18:30:00\.000Z$/);
  const rezoned = await call(scheduler, "update_schedule", { schedule_id: mine["schedule_id"], timezone: "Asia/Tokyo" });
  assert.match(rezoned.body["next_run_at"], /T09:30:00\.000Z$/, "18:30 in Tokyo is 09:30 UTC");
  assert.equal((await call(scheduler, "cancel_schedule", { schedule_id: mine["schedule_id"] })).body, { schedule_id: mine["schedule_id"], cancelled: true });
  assert.is((await call(scheduler, "get_schedule", { schedule_id: mine["schedule_id"] })).status, 404);
});

test("an agent's generated client names the agent by itself", async ({ scheduler }) => {
  const { scheduler: client } = TravelAgent.clients({ baseUrls: { scheduler: scheduler.url } });
  const created = await client.scheduleTask({ delay: "3h", instruction: "from the client" });
  assert.is(created.target_agent, "travel-agent");
  const { schedules } = await client.listSchedules({});
  assert.ok(schedules.some((s) => s.schedule_id === created.schedule_id));
});

test.run();

const registered = suite("scheduler tool with a registry");

registered("schedule_task refuses an agent nobody registered at once (404), instead of dead-lettering it when it fires", async () => {
  const registry = createMemoryRegistry();
  await registry.register(registration({ name: "travel-agent", type: "agent", port: 9301 }));
  await registry.register(registration({ name: "weather-service", type: "tool", port: 9302 }));
  const scheduler = await serveScheduler({
    port: 0,
    registry,
    handleSignals: false,
    log: () => undefined,
    executor: false,
    tickMs: 60_000,
    auth: { required: false, trustIdentityHeaders: true },
  });
  try {
    const ghost = await call(scheduler, "schedule_task", { delay: "1h", instruction: "x" }, "ghost-agent");
    assert.equal([ghost.status, ghost.body["error"].code], [404, "NOT_FOUND"]);
    assert.match(ghost.body["error"].message, /no agent named ghost-agent is registered/);
    const tool = await call(scheduler, "schedule_task", { delay: "1h" }, "weather-service");
    assert.equal([tool.status, tool.body["error"].code], [404, "NOT_FOUND"], "a tool of that name is no agent");
    assert.equal((await scheduler.schedules.list({ limit: 10, offset: 0, target_agent: "ghost-agent" })).length, 0, "nothing was stored");
    const known = await call(scheduler, "schedule_task", { delay: "1h", instruction: "brief" }, "travel-agent");
    assert.is(known.status, 200, JSON.stringify(known.body));
  } finally {
    await scheduler.close();
  }
});

registered.run();
