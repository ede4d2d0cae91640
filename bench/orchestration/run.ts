/**
 * What the orchestration executor costs per step over making the same HTTP calls by hand.
 *
 * The tool runs in a child process. Two shapes, each run through the executor (plan, expressions,
 * scheduling, the outbound caller) and as raw node:http keep-alive POSTs in the same order and
 * concurrency: (a) a 10-step chain, each step reading the previous one's output, (b) a 10-wide
 * fan-out. Runs of the two sides are interleaved so machine noise hits both alike; medians are
 * reported, and the overhead per step is (executor − raw) / 10. The executor's transport (undici)
 * costs less per call than the raw node:http POSTs, which hides part of the executor's own cost.
 *
 *   npm run bench:orchestration        BENCH_RUNS=2000 (measured runs per shape and side), BENCH_WARMUP=300
 */
import { createCaller, keepAliveTransport } from "../../runtime/outbound/index.js";
import { createExecutor, createResolver, type Plan, type PlanStep } from "../../runtime/orchestration/index.js";
import { rawPost, startBenchTool } from "./harness.js";
import { BENCH_TOOL } from "./spec.js";

const RUNS = Number(process.env["BENCH_RUNS"] ?? 2_000);
const WARMUP = Number(process.env["BENCH_WARMUP"] ?? 300);
const STEPS = 10;

const { url, child } = await startBenchTool();

const executor = createExecutor({
  resolve: createResolver({ components: [BENCH_TOOL], baseUrls: { [BENCH_TOOL.name]: url }, registry: false }),
  // The orchestrator's own caller settings (createOrchestrator): the one outbound caller, on undici.
  caller: createCaller({ env: {}, transport: keepAliveTransport }),
});

const step = (i: number, dependsOn: readonly string[], parameters: Record<string, unknown>): PlanStep => ({
  step_id: `s${i}`,
  agent_name: BENCH_TOOL.name,
  depends_on: dependsOn,
  metadata: { capability: "echo", parameters },
  on_error: "fail",
});
// Parameters are the same objects on every run, as a workflow's are, so expressions are compiled once.
const chainSteps = Array.from({ length: STEPS }, (_, i) => (i === 0 ? step(0, [], { n: 0 }) : step(i, [`s${i - 1}`], { n: `\${steps.s${i - 1}.output.n}` })));
const fanSteps = Array.from({ length: STEPS }, (_, i) => step(i, [], { n: i }));
let seq = 0;
const plan = (steps: readonly PlanStep[]): Plan => ({ plan_id: `workflow-${++seq}`, original_request: "{}", mode: "workflow", steps });

const post = rawPost(new URL(url + BENCH_TOOL.capabilities[0]!.endpoint));

const shapes = {
  chain: {
    executor: async () => {
      const result = await executor.execute(plan(chainSteps));
      if (result.status !== "completed") throw new Error(JSON.stringify(result.steps.find((s) => s.status !== "completed")));
    },
    raw: async () => {
      let n = 0;
      for (let i = 0; i < STEPS; i += 1) n = (await post({ n })).n;
    },
  },
  "fan-out": {
    executor: async () => {
      const result = await executor.execute(plan(fanSteps));
      if (result.status !== "completed") throw new Error("fan-out failed");
    },
    raw: async () => {
      await Promise.all(Array.from({ length: STEPS }, (_, n) => post({ n })));
    },
  },
};

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

console.log(`node ${process.version}, ${STEPS} steps per run, ${RUNS} measured runs per shape and side after ${WARMUP} warm-up runs\n`);
console.log(`${"shape".padEnd(10)}${"raw ms".padStart(10)}${"executor ms".padStart(14)}${"overhead/step ms".padStart(19)}${"ratio".padStart(9)}`);
for (const [name, sides] of Object.entries(shapes)) {
  for (let i = 0; i < WARMUP; i += 1) {
    await sides.raw();
    await sides.executor();
  }
  const raw: number[] = [];
  const orchestrated: number[] = [];
  for (let i = 0; i < RUNS; i += 1) {
    let started = performance.now();
    await sides.raw();
    raw.push(performance.now() - started);
    started = performance.now();
    await sides.executor();
    orchestrated.push(performance.now() - started);
  }
  const r = median(raw);
  const e = median(orchestrated);
  console.log(
    `${name.padEnd(10)}${r.toFixed(3).padStart(10)}${e.toFixed(3).padStart(14)}${((e - r) / STEPS).toFixed(3).padStart(19)}${(e / r).toFixed(2).padStart(9)}`,
  );
}
console.log("\naim: overhead per step < 0.3 ms");
post.close();
child.kill("SIGTERM");
