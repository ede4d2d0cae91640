/**
 * The embedded task store under a flood over real HTTP: an api-mode agent (tasks queue, none run)
 * on the memory store with a 4 MiB budget takes 200 KB task inputs until live tasks fill the budget,
 * then answers 503 UNAVAILABLE saying so; it stays up, and its memory stays near the budget (300
 * such submits took an unbounded agent from 13 MB to 316 MB of heap).
 */
import { readFileSync } from "node:fs";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { killAll, startFixture, type Fixture } from "./helpers.js";

let agent: Fixture;
const BUDGET = 4 * 1024 * 1024;

/** The child's resident memory, from /proc. */
function rssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8")
    .split("\n")
    .find((l) => l.startsWith("VmRSS:"))!;
  return Number(/(\d+)/.exec(line)![1]) / 1024;
}

test.before(async () => {
  agent = await startFixture("natural-agent.ts", { MANIFOLD_MODE: "api", MANIFOLD_MEMORY_MAX_TASK_BYTES: String(BUDGET), REDIS_URL: "", OPENAI_API_KEY: "" });
  await agent.waitFor((e) => e["event"] === "listening");
});
test.after(() => killAll());

test("300 submits of 200 KB: accepted until the budget is full of live tasks, then 503 UNAVAILABLE; the agent stays up and bounded", async () => {
  const destination = "x".repeat(200_000);
  const before = rssMb(agent.child.pid!);
  const statuses: number[] = [];
  const bodies: string[] = [];
  for (let round = 0; round < 15; round++) {
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        fetch(`${agent.url}/api/v1/tasks`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ type: "research", input: { destination } }),
        }),
      ),
    );
    for (const answer of answers) {
      statuses.push(answer.status);
      bodies.push(await answer.text());
    }
  }
  const accepted = statuses.filter((s) => s === 202).length;
  const refused = statuses.filter((s) => s === 503).length;
  assert.is(accepted + refused, 300, JSON.stringify([...new Set(statuses)]));
  // Each record counts its input twice (UTF-16), so 4 MiB holds about ten of them.
  assert.ok(accepted >= 5 && accepted <= 12, `${accepted} accepted`);
  const refusal = JSON.parse(bodies[statuses.indexOf(503)]!) as { error: { code: string; message: string; retryable: boolean } };
  assert.equal([refusal.error.code, refusal.error.retryable], ["UNAVAILABLE", true]);
  assert.match(refusal.error.message, /embedded task store is full of live tasks/);
  assert.is((await fetch(`${agent.url}/health`)).status, 200);
  const grown = rssMb(agent.child.pid!) - before;
  assert.ok(grown < 120, `resident memory grew ${grown.toFixed(0)} MB`);
});

test.run();
