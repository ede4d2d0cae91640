/**
 * The Skills view shows each agent's catalog as that agent's planner reads it: a real agent process
 * (serveComponent, registered in a real Redis) whose `uses` entry limits the planner and which allows
 * one lasting capability; the dashboard marks the rest hidden, with the reason, and counts them.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { serveComponent, type RunningComponent } from "../../runtime/component/index.js";
import { serveDashboard, type RunningDashboard } from "../../runtime/dashboard/index.js";
import { createRegistry, type Registry } from "../../runtime/discovery/index.js";
import type { ComponentSpec } from "../../runtime/spec/index.js";
import { createStore, type Store } from "../../runtime/store/index.js";
import { startRedisServer, type RedisServer } from "../support/redis.js";
import { eventually } from "../support/wait.js";
import { capability, get, registration } from "./support.js";

let redis: RedisServer;
let store: Store;
let registry: Registry;
let dashboard: RunningDashboard;
let agent: RunningComponent;

const AGENT: ComponentSpec = {
  kind: "agent",
  name: "timer-agent",
  description: "plans with timers",
  version: "1.0.0",
  capabilities: [],
  agent: {
    uses: ["clock", "ledger-tool"],
    plannerCapabilities: { clock: ["list_timers", "set_timer"] },
    orchestration: { custom: false, workflows: [], endpoints: [], natural: { model: "m", allowLastingEffects: ["clock.set_timer"] } },
  } as never,
};

test.before(async () => {
  redis = await startRedisServer();
  const env = { REDIS_URL: redis.url, MANIFOLD_REDIS_NAMESPACE: "skills-planner" };
  store = createStore({ env });
  registry = createRegistry({ store, cache: false });
  await registry.register(
    registration({
      name: "clock",
      capabilities: [
        capability("list_timers"),
        capability("set_timer", { effects: "lasting" }),
        capability("cancel_timer", { effects: "lasting" }),
        capability("stop_all"),
      ],
    }),
  );
  await registry.register(
    registration({ name: "ledger-tool", capabilities: [capability("post_entry", { effects: "lasting" }), capability("rebuild", { internal: true })] }),
  );
  agent = await serveComponent(AGENT, { port: 0, handlers: {}, registry, handleSignals: false, log: () => undefined, drainTimeoutMs: 200 });
  dashboard = await serveDashboard({ port: 0, handleSignals: false, log: () => undefined, env });
});

test.after(async () => {
  await dashboard?.close();
  await agent?.close();
  await registry?.close();
  await store?.close();
  await redis?.close();
});

test("hidden capabilities are marked with why: the agent's uses entry, lasting effects not allowed, internal", async () => {
  let skills: any;
  await eventually("the agent's catalog", async () => {
    skills = (await get(`${dashboard.url}/api/skills`)).body.agents.find((a: any) => a.agent === "timer-agent");
    return skills?.components.some((c: any) => c.name === "clock") === true;
  });
  const marks = (name: string) =>
    skills.components.find((c: any) => c.name === name).capabilities.map((c: any) => [c.name, c.planner_visible, c.hidden_by ?? null]);
  assert.equal(marks("clock"), [
    ["list_timers", true, null],
    ["set_timer", true, null],
    ["cancel_timer", false, "uses"],
    ["stop_all", false, "uses"],
  ]);
  assert.equal(marks("ledger-tool"), [
    ["post_entry", false, "lasting"],
    ["rebuild", false, "internal"],
  ]);
  assert.equal([skills.visible_count, skills.internal_count, skills.hidden_count], [2, 1, 3]);
});

test.run();
