/**
 * A scheduled run's POST must outlast the agent's own limit on the run (SPEC: the executor's dispatch
 * timeout is at least the agent's MANIFOLD_ORCHESTRATION_TIMEOUT): an executor that gives up first
 * retries a run still running. Both variables set in one environment and contradicting is a start-up
 * failure naming both, for the scheduler and for a scheduled agent; when only one side's value is
 * visible (the other is another process), start-up warns naming both.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { defineAgent } from "../../runtime/codegen/v1/index.js";
import { createOrchestrationExtension } from "../../runtime/orchestration/index.js";
import { scheduledFeature, serveScheduler } from "../../runtime/scheduling/index.js";
import { createLogger } from "../../runtime/telemetry/index.js";
import { agent as agentManifest, agentSpec } from "../support/specs.js";

const SPEC = agentSpec(agentManifest("nightly-agent", { description: "Answers scheduled runs", capabilities: {}, more: { scheduled: true } }));
const NightlyAgent = defineAgent<{}, {}>(SPEC, {});
const quiet = { port: 0, registry: false, handleSignals: false, log: () => {}, handlers: {} } as const;

/** The scheduler's own log says only warnings and errors. */
const QUIET_ENV = { MANIFOLD_LOG_LEVEL: "warn" };

/** A logger whose lines the test reads. */
function captured(): { lines: { level: string; message: string }[]; log: ReturnType<typeof createLogger> } {
  const lines: { level: string; message: string }[] = [];
  const log = createLogger({ component: "test", level: "debug", env: {}, write: (line) => lines.push(JSON.parse(line)) });
  return { lines, log };
}

const warningsNamingBoth = (lines: { level: string; message: string }[]) =>
  lines.filter((l) => l.level === "warn" && /MANIFOLD_EXECUTOR_DISPATCH_TIMEOUT/.test(l.message) && /MANIFOLD_ORCHESTRATION_TIMEOUT/.test(l.message));

test("the scheduler refuses to start when its dispatch timeout is shorter than MANIFOLD_ORCHESTRATION_TIMEOUT set beside it", async () => {
  const env = { MANIFOLD_EXECUTOR_DISPATCH_TIMEOUT: "2m", MANIFOLD_ORCHESTRATION_TIMEOUT: "5m" };
  try {
    const scheduler = await serveScheduler({ port: 0, registry: false, handleSignals: false, log: () => undefined, env });
    await scheduler.close();
    assert.unreachable("the scheduler started");
  } catch (error) {
    assert.instance(error, RangeError);
    assert.match((error as Error).message, /MANIFOLD_EXECUTOR_DISPATCH_TIMEOUT \(120000 ms\) is shorter than MANIFOLD_ORCHESTRATION_TIMEOUT \(300000 ms\)/);
  }
});

test("a dispatch timeout shorter than the agents' default run limit starts with a warning naming both variables; a long enough one without", async () => {
  const short = captured();
  const scheduler = await serveScheduler({
    port: 0,
    registry: false,
    handleSignals: false,
    log: () => undefined,
    env: QUIET_ENV,
    executor: { dispatchTimeoutMs: 60_000, log: short.log },
  });
  await scheduler.close();
  const [warning] = warningsNamingBoth(short.lines);
  assert.ok(warning, JSON.stringify(short.lines));
  assert.match(warning!.message, /\(60000 ms\) is shorter than MANIFOLD_ORCHESTRATION_TIMEOUT \(300000 ms, its default\)/);

  const fine = captured();
  const defaults = await serveScheduler({ port: 0, registry: false, handleSignals: false, log: () => undefined, env: QUIET_ENV, executor: { log: fine.log } });
  await defaults.close();
  assert.equal(warningsNamingBoth(fine.lines), []);
});

test("a scheduled agent refuses to start when MANIFOLD_EXECUTOR_DISPATCH_TIMEOUT set beside it is shorter than its MANIFOLD_ORCHESTRATION_TIMEOUT", async () => {
  process.env["MANIFOLD_ORCHESTRATION_TIMEOUT"] = "20m";
  process.env["MANIFOLD_EXECUTOR_DISPATCH_TIMEOUT"] = "10m";
  try {
    const agent = await NightlyAgent.serve({ ...quiet, scheduled: () => "ok" });
    await agent.close();
    assert.unreachable("the agent started");
  } catch (error) {
    assert.instance(error, RangeError);
    assert.match((error as Error).message, /MANIFOLD_EXECUTOR_DISPATCH_TIMEOUT \(600000 ms\) is shorter than MANIFOLD_ORCHESTRATION_TIMEOUT \(1200000 ms\)/);
  } finally {
    delete process.env["MANIFOLD_ORCHESTRATION_TIMEOUT"];
    delete process.env["MANIFOLD_EXECUTOR_DISPATCH_TIMEOUT"];
  }
});

test("a scheduled agent whose run limit exceeds the executor's default dispatch timeout warns at start-up, naming both", async () => {
  const env = { MANIFOLD_ORCHESTRATION_TIMEOUT: "20m" };
  const { lines, log } = captured();
  const orchestration = createOrchestrationExtension(SPEC, { registry: false, executionStore: false, env, log });
  const services = { spec: SPEC, agent: SPEC.agent!, usedSpecs: [], orchestration, registry: false, log: () => log, env } as never;
  const built = await scheduledFeature.build!({ scheduled: () => "ok" }, services);
  await built.extension.stop?.(0);
  const [warning] = warningsNamingBoth(lines);
  assert.ok(warning, JSON.stringify(lines));
  assert.match(warning!.message, /\(900000 ms, its default\) is shorter than MANIFOLD_ORCHESTRATION_TIMEOUT \(1200000 ms\)/);
});

test.run();
