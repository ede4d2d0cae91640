/**
 * Owners of schedules and checkpoints (issue 32 M3): the scheduler takes the calling agent from its
 * agent token (derived from MANIFOLD_REGISTRY_KEY), so a forged `X-Manifold-Agent-Name` changes,
 * cancels and lists nothing, and `list_schedules` lists the caller's own; a checkpoint belongs to the
 * identity whose request paused, and only it or a subject in MANIFOLD_HITL_APPROVERS may list, read,
 * approve or resume it.
 */
import { randomBytes } from "node:crypto";
import { SignJWT } from "jose";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { TravelAgent } from "../../generated/travel-agent/index.js";
import { serveAgent } from "../../runtime/agent/index.js";
import { createMemoryCheckpointStore } from "../../runtime/hitl/index.js";
import { createCaller } from "../../runtime/outbound/index.js";
import { serveScheduler } from "../../runtime/scheduling/index.js";
import type { ComponentSpec } from "../../runtime/spec/index.js";
import { agentSpec, startTools } from "../orchestration/support.js";
import { QUIET_AGENT } from "../support/serve.js";
import { ECHO_PAY, SENSITIVE_ECHO } from "../hitl/support.js";

for (const name of ["REDIS_URL", "MANIFOLD_TRUST_IDENTITY_HEADERS", "MANIFOLD_AUTH_JWKS_URL", "MANIFOLD_AUTH_ISSUER", "MANIFOLD_AUTH_AUDIENCE"])
  delete process.env[name];
const NETWORK_KEY = randomBytes(32).toString("hex");
const SECRET = randomBytes(32).toString("hex");
process.env["MANIFOLD_REGISTRY_KEY"] = NETWORK_KEY;

const scheduler = await serveScheduler({ port: 0, registry: false, handleSignals: false, log: () => undefined, executor: false, tickMs: 60_000 });
const travel = TravelAgent.clients({ baseUrls: { scheduler: scheduler.url } }).scheduler;
/** Another agent of the same network: a real caller with its own name, so its own real agent token. */
const other = createCaller({ agentName: "other-agent", log: { warn: () => undefined } as never });
const asOther = (capability: string, body: unknown, headers: Record<string, string> = {}) =>
  other.call({ url: `${scheduler.url}/api/capabilities/${capability}`, name: capability, target: "scheduler", body, headers }).then(
    (value) => ({ ok: true as const, value: value as any }),
    (error: { code: string }) => ({ ok: false as const, code: error.code }),
  );
/** A bare HTTP caller that says whatever it likes in X-Manifold-Agent-Name. */
async function forged(capability: string, body: unknown, agent = "travel-agent") {
  const response = await fetch(`${scheduler.url}/api/capabilities/${capability}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-manifold-agent-name": agent },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any };
}

test("schedules: the agent token names the owner; a forged X-Manifold-Agent-Name or another agent changes, cancels and sees nothing of it", async () => {
  const mine = await travel.scheduleTask({ delay: "1h", instruction: "Morning brief", input: { destination: "Kyoto" } });
  assert.is(mine.target_agent, "travel-agent");
  const id = mine.schedule_id;

  for (const [capability, body] of [
    ["update_schedule", { schedule_id: id, instruction: "wire the money" }],
    ["cancel_schedule", { schedule_id: id }],
    ["get_schedule", { schedule_id: id }],
    ["list_schedules", {}],
    ["schedule_task", { delay: "1m", instruction: "x" }],
  ] as const) {
    const reply = await forged(capability, body);
    assert.is(reply.status, 401, `${capability} with only a header: ${JSON.stringify(reply.body)}`);
    assert.is(reply.body.error.code, "UNAUTHORIZED");
  }
  // Another agent's genuine token, and the victim's name in the header beside it: the token wins.
  assert.equal(await asOther("update_schedule", { schedule_id: id, instruction: "wire the money" }, { "X-Manifold-Agent-Name": "travel-agent" }), {
    ok: false,
    code: "NOT_FOUND",
  });
  assert.equal(await asOther("cancel_schedule", { schedule_id: id }), { ok: false, code: "NOT_FOUND" });
  assert.equal(await asOther("get_schedule", { schedule_id: id }), { ok: false, code: "NOT_FOUND" });
  const theirs = await asOther("schedule_task", { delay: "2h", instruction: "their own" });
  assert.is(theirs.ok && theirs.value.target_agent, "other-agent");
  const listed = await asOther("list_schedules", {});
  assert.equal(
    listed.ok && listed.value.schedules.map((s: { schedule_id: string }) => s.schedule_id),
    [theirs.ok && theirs.value.schedule_id],
    "list_schedules lists the caller's own only",
  );

  const still = await travel.getSchedule({ schedule_id: id });
  assert.is(still.instruction, "Morning brief", "unchanged");
  assert.equal(
    (await travel.listSchedules({})).schedules.map((s) => s.schedule_id),
    [id],
  );
  const wrongKey = createCaller({
    agentName: "travel-agent",
    env: { MANIFOLD_REGISTRY_KEY: randomBytes(32).toString("hex") },
    log: { warn: () => undefined } as never,
  });
  const refused = await wrongKey
    .call({ url: `${scheduler.url}/api/capabilities/cancel_schedule`, name: "cancel_schedule", target: "scheduler", body: { schedule_id: id } })
    .catch((error: { code: string }) => error.code);
  assert.is(refused, "UNAUTHORIZED", "a token from another network's key proves nothing");
  assert.equal(await travel.cancelSchedule({ schedule_id: id }), { schedule_id: id, cancelled: true });
});

async function token(sub: string): Promise<string> {
  return new SignJWT({}).setProtectedHeader({ alg: "HS256" }).setSubject(sub).setIssuedAt().setExpirationTime("5m").sign(new TextEncoder().encode(SECRET));
}

test("checkpoints: a non-owner who is no approver can neither list, read, approve nor resume one; the owner and an approver can", async () => {
  const tools = await startTools();
  const base = agentSpec("pay-agent", { custom: true, workflows: [ECHO_PAY] });
  const spec: ComponentSpec = { ...base, agent: { ...base.agent!, hitl: SENSITIVE_ECHO } };
  process.env["MANIFOLD_AUTH_JWT_SECRET"] = SECRET;
  process.env["MANIFOLD_HITL_APPROVERS"] = "dashboard, ops";
  const running = await serveAgent(spec, tools.specs, {
    ...QUIET_AGENT,
    orchestration: { baseUrls: tools.baseUrls, executionStore: false },
    hitl: { store: createMemoryCheckpointStore(), expiry: false },
  } as never);
  delete process.env["MANIFOLD_AUTH_JWT_SECRET"];
  delete process.env["MANIFOLD_HITL_APPROVERS"];
  const as = (who: string) => async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${running.url}${path}`, {
      method,
      headers: { "content-type": "application/json", authorization: `Bearer ${await token(who)}` },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as any };
  };
  const [alice, mallory, dashboard] = [as("alice"), as("mallory"), as("dashboard")];
  try {
    const paused = await alice("POST", "/orchestrate/pay", { a: 99 });
    assert.is(paused.status, 202, JSON.stringify(paused.body));
    const id = paused.body.checkpoint_id as string;
    assert.equal(paused.body.checkpoint.requested_by, { subject: "alice", kind: "user" });

    const listed = await mallory("GET", "/hitl/checkpoints");
    assert.is(listed.status, 200);
    assert.equal(listed.body.checkpoints, [], "a stranger lists nothing");
    assert.is((await mallory("GET", `/hitl/checkpoints/${id}`)).status, 404);
    const approve = await mallory("POST", "/hitl/command", { checkpoint_id: id, action: "approve", parameters: { amount: 99999999, tag: "charge" } });
    assert.is(approve.status, 404, JSON.stringify(approve.body));
    assert.is((await mallory("POST", `/hitl/resume/${id}`)).status, 404);
    assert.is((await alice("GET", `/hitl/checkpoints/${id}`)).body.status, "pending", "the stranger changed nothing");
    assert.is(tools.calls.filter((c) => c.capability === "echo").length, 0);

    const seen = await dashboard("GET", "/hitl/checkpoints");
    assert.equal(
      seen.body.checkpoints.map((c: { checkpoint_id: string }) => c.checkpoint_id),
      [id],
      "an approver lists it",
    );
    assert.is((await dashboard("POST", "/hitl/command", { checkpoint_id: id, action: "approve" })).status, 200);
    const resumed = await alice("POST", `/hitl/resume/${id}`);
    assert.is(resumed.status, 200, JSON.stringify(resumed.body));
    assert.equal(resumed.body.outputs, { charged: 99 });
  } finally {
    await running.close();
    await tools.close();
  }
});

test.after(async () => {
  await scheduler.close();
  delete process.env["MANIFOLD_REGISTRY_KEY"];
});

test.run();
