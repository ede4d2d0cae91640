/**
 * The orchestration and HITL speed aims the suites no longer time (they assert order and outcome
 * instead): the executor's diamond, how promptly a step timeout, a failure and the caller's abort end
 * a run, and how soon the HITL expiry processor wakes for a checkpoint due long before its interval.
 * The tool is a bare node:http server in this process whose `sleep` answers after `ms` (or aborts).
 *
 *   npx tsx --conditions=source bench/orchestration/aims.ts        BENCH_ROUNDS=5 (worst of)
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createExpiryProcessor, createMemoryCheckpointStore, newCheckpointId } from "../../runtime/hitl/index.js";
import { createCaller, keepAliveTransport } from "../../runtime/outbound/index.js";
import { createExecutor, createResolver, type Plan, type PlanStep } from "../../runtime/orchestration/index.js";

const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? 5);

const server = createServer((req, res) => {
  let text = "";
  req.on("data", (chunk: Buffer) => (text += chunk.toString()));
  req.on("end", () => {
    const body = JSON.parse(text || "{}") as { ms?: number; fail?: boolean };
    if (body.fail === true) {
      res.writeHead(500, { "content-type": "application/json" }).end(JSON.stringify({ error: { code: "HANDLER_ERROR", message: "scripted" } }));
      return;
    }
    const timer = setTimeout(() => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ slept: body.ms ?? 0 })), body.ms ?? 0);
    res.on("close", () => clearTimeout(timer));
  });
});
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

const executor = createExecutor({
  resolve: createResolver({ baseUrls: { tool: url }, registry: false }),
  caller: createCaller({ env: {}, transport: keepAliveTransport }),
  log: Object.assign(() => undefined, { debug() {}, info() {}, warn() {}, error() {} }) as never,
});
const step = (id: string, parameters: Record<string, unknown>, more: Partial<PlanStep> = {}): PlanStep => ({
  step_id: id,
  agent_name: "tool",
  depends_on: [],
  metadata: { capability: "sleep", parameters },
  on_error: "fail",
  ...more,
});
let seq = 0;
const plan = (steps: PlanStep[]): Plan => ({ plan_id: `workflow-${++seq}`, original_request: "{}", mode: "workflow", steps });

async function worst(what: string, measure: () => Promise<number>): Promise<void> {
  await measure(); // warm: connections, JIT
  const times: number[] = [];
  for (let i = 0; i < ROUNDS; i += 1) times.push(await measure());
  console.log(`${what}: worst of ${ROUNDS} ${Math.max(...times).toFixed(1)} ms (best ${Math.min(...times).toFixed(1)} ms)`);
}

const timed = async (run: () => Promise<unknown>): Promise<number> => {
  const started = performance.now();
  await run();
  return performance.now() - started;
};

await worst("diamond A 20 → B 300 ‖ A → C 50 → E 50, then D 20 (run duration; waves ≈ 440 ms)", () =>
  timed(() =>
    executor.execute(
      plan([
        step("a", { ms: 20 }),
        step("b", { ms: 300 }, { depends_on: ["a"] }),
        step("c", { ms: 50 }, { depends_on: ["a"] }),
        step("e", { ms: 50 }, { depends_on: ["c"] }),
        step("d", { ms: 20 }, { depends_on: ["b", "e"] }),
      ]),
    ),
  ),
);
await worst("a 2 s step with timeout_ms 100 ends the run", () => timed(() => executor.execute(plan([step("slow", { ms: 2_000 }, { timeout_ms: 100 })]))));
await worst("a failed step aborts a 2 s one beside it (on_error: fail)", () =>
  timed(() => executor.execute(plan([step("long", { ms: 2_000 }), step("boom", { fail: true })]))),
);
await worst("the caller's abort at 100 ms ends a run of two 3 s steps", () => {
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 100);
  return timed(() => executor.execute(plan([step("one", { ms: 3_000 }), step("two", { ms: 3_000 })]), { signal: controller.signal }));
});

await worst("HITL expiry: a checkpoint due in 150 ms, interval 60 s, expired after (from start)", async () => {
  const store = createMemoryCheckpointStore();
  const now = Date.now();
  await store.create({
    checkpoint_id: newCheckpointId(),
    type: "plan",
    agent_name: "bench",
    request_mode: "non_streaming",
    plan: plan([]),
    decision: { reason: "bench", sensitive_matches: [] },
    original_request: {},
    user_context: {},
    original_request_id: "req-bench",
    completed_steps: [],
    default_action: "reject",
    created_at: new Date(now).toISOString(),
    expires_at: new Date(now + 150).toISOString(),
  });
  let expiredAt = 0;
  const processor = createExpiryProcessor({ store, intervalMs: 60_000, onExpired: () => void (expiredAt = performance.now()) });
  const started = performance.now();
  processor.start();
  while (expiredAt === 0) await new Promise((resolve) => setTimeout(resolve, 5));
  await processor.stop();
  return expiredAt - started;
});

server.close();
process.exit(0);
