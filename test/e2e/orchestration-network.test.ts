/**
 * Orchestration end to end on real processes: a timer tool and an orchestrating agent, each its own
 * process, talking HTTP. Custom mode reports a failed middle step in place; a YAML workflow file
 * given at start-up is checked and runs; in a diamond whose slow branch sleeps until the fast chain ends, the fast chain
 * beside it runs while it sleeps (not in waves), as the tool's own clock shows. How fast that is, is
 * a bench's business (bench/README.md), not a test's.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { killAll, startFixture, type Fixture } from "./helpers.js";

let tool: Fixture;
let agent: Fixture;
const dir = mkdtempSync(join(tmpdir(), "manifold-e2e-orchestration-"));

const YAML = `kind: workflow
name: yaml-sum
version: "1.0"
inputs:
  a: { type: number, required: true }
  b: { type: number, required: true }
steps:
  - name: nap
    tool: timer-tool
    action: sleep
    inputs: { ms: 20, tag: "yaml" }
  - name: sum
    tool: timer-tool
    action: add
    depends_on: [nap]
    inputs: { a: "\${inputs.a}", b: "\${inputs.b}" }
outputs:
  sum: "\${steps.sum.output.sum}"
  note: "\${inputs.a} + \${inputs.b} = \${steps.sum.output.sum}"
`;

async function post(path: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(agent.url + path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const parsed = (await response.json()) as Record<string, unknown>;
  return { status: response.status, body: parsed };
}

test.before(async () => {
  writeFileSync(join(dir, "yaml-sum.yaml"), YAML);
  tool = await startFixture("orchestration/timer-tool.ts");
  agent = await startFixture("orchestration/agent.ts", { TIMER_TOOL_URL: tool.url, WORKFLOW_FILES: join(dir, "yaml-sum.yaml") });
});

test.after(() => {
  killAll();
  rmSync(dir, { recursive: true, force: true });
});

type Step = { step_id: string; status: string; output?: Record<string, number>; error?: { code: string; message: string } };

test("custom mode: ordered entries, the failed middle step in its place, the last step still run", async () => {
  const { status, body } = await post("/orchestrate/custom", {
    steps: [
      { tool: "timer-tool", capability: "add", params: { a: 2, b: 3 } },
      { tool: "timer-tool", capability: "fail" },
      { tool: "timer-tool", capability: "sleep", params: { ms: 5, tag: "last" } },
    ],
  });
  assert.is(status, 200);
  assert.is(body["success"], false);
  assert.match(String(body["plan_id"]), /^custom-\d{19}$/);
  const steps = body["steps"] as { step_id: string; success: boolean; error: { code: string } | null; output?: Record<string, unknown> }[];
  assert.equal(
    steps.map((s) => [s.step_id, s.success, s.error?.code ?? null]),
    [
      ["step-1", true, null],
      ["step-2", false, "HANDLER_ERROR"],
      ["step-3", true, null],
    ],
  );
  assert.equal(steps[0]!.output, { sum: 5 });
  assert.is(steps[2]!.output?.["tag"], "last");
});

test("a YAML workflow file loaded at start-up is checked and executes", async () => {
  const { status, body } = await post("/orchestrate/yaml-sum", { a: 20, b: 22 });
  assert.is(status, 200, JSON.stringify(body));
  assert.equal(body["outputs"], { sum: 42, note: "20 + 22 = 42" });
  assert.match(String(body["plan_id"]), /^yaml-\d{19}$/);
  const bad = await post("/orchestrate/yaml-sum", { a: 1 });
  assert.is(bad.status, 400);
  assert.equal(
    (bad.body["error"] as { details: { pointer: string }[] }).details.map((d) => d.pointer),
    ["/b"],
  );
  await agent.waitForLog(/workflow yaml-sum loaded from/);
});

test("a diamond's fast chain runs while its slow branch sleeps, not in waves", async () => {
  // B sleeps until E has ended, 20 s at most: run by dependencies, E (after C) runs while B sleeps and
  // releases it; in waves E could start only once B ended, so B would sleep its whole 20 s. Which one
  // ended B is the tool's answer, whatever the machine's speed.
  const { status, body } = await post("/orchestrate/diamond", { slow_ms: 20_000, run: "r1" });
  assert.is(status, 200, JSON.stringify(body));
  assert.equal(body["outputs"], { total: 20_140 });
  const steps = Object.fromEntries((body["steps"] as Step[]).map((s) => [s.step_id, s]));
  const [b, e, d] = [steps["b"]!.output!, steps["e"]!.output!, steps["d"]!];
  assert.is(b["released_by"], "tag", "E ended while B was still sleeping");
  assert.ok(e["started_ms"]! >= b["started_ms"]!, `E started at ${e["started_ms"]}, after B started at ${b["started_ms"]}`);
  assert.ok(e["ended_ms"]! <= b["ended_ms"]!, `E ended at ${e["ended_ms"]}, B at ${b["ended_ms"]}`);
  assert.is(d.status, "completed");
  console.log(`  diamond: ${Number(body["duration_ms"]).toFixed(1)} ms (the dependency-driven schedule's speed is bench:aims's)`);
});

test.run();
