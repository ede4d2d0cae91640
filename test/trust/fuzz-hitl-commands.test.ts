/**
 * Random human-approval command sequences against two replicas of one agent sharing Redis, on real
 * processes: 30 runs stop before a sensitive `charge`; then approve, reject, resume (plain and
 * streaming) and reads for all of them are fired in a seeded random order at random replicas, 16 at a
 * time, so commands on one checkpoint race each other across processes.
 *
 * What a user relies on: a checkpoint is decided once (never both approved and rejected); the
 * sensitive tool runs at most once per checkpoint, and only for a checkpoint whose approval was
 * accepted; an approval is never lost (an approved checkpoint not yet run still runs, once, on a final
 * resume); and no command answers a 500. The tool process counts its own charges. `FUZZ_SEED` replays.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { startRedisServer, type RedisServer } from "../support/redis.js";
import { killAll, startFixture, type Fixture } from "../e2e/helpers.js";
import { fuzzSeed, seededRandom } from "../support/random.js";

const SEED = fuzzSeed(20261126);
const CHECKPOINTS = 30;
const OPS_PER_CHECKPOINT = 8;
const CONCURRENCY = 16;
const TIMEOUT_MS = 20_000;

const rand = seededRandom(SEED);
const { pick } = rand;

let redis: RedisServer;
let tool: Fixture;
let replicas: Fixture[] = [];

interface Reply {
  readonly status: number;
  readonly text: string;
}

async function send(method: "GET" | "POST", url: string, body?: unknown): Promise<Reply> {
  const response = await fetch(url, {
    method,
    ...(method === "POST" ? { headers: { "content-type": "application/json" }, body: JSON.stringify(body ?? {}) } : {}),
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  return { status: response.status, text: await response.text() };
}

async function charges(): Promise<Record<string, number>> {
  const reply = await send("POST", `${tool.url}/api/capabilities/calls`, {});
  assert.is(reply.status, 200, reply.text);
  return (JSON.parse(reply.text) as { by_ref: Record<string, number> }).by_ref;
}

test.before(async () => {
  redis = await startRedisServer();
  const pinned = { REDIS_URL: redis.url, MANIFOLD_REDIS_NAMESPACE: "", MANIFOLD_HITL_ENABLED: "", MANIFOLD_HITL_STEP_SENSITIVE_CAPABILITIES: "" };
  const [started, ...agents] = await Promise.all([
    startFixture("hitl-tool.ts", pinned),
    startFixture("hitl-agent.ts", { ...pinned, OPENAI_API_KEY: "" }),
    startFixture("hitl-agent.ts", { ...pinned, OPENAI_API_KEY: "" }),
  ]);
  tool = started!;
  replicas = agents;
});

test.after(async () => {
  killAll();
  await redis?.close();
});

type Op = "approve" | "approve-with-parameters" | "reject" | "resume" | "stream" | "read";

test(`random HITL commands on two replicas: decided once, each sensitive action at most once and only after approval (seed ${SEED})`, async () => {
  const runs: { id: string; ref: string }[] = [];
  for (let i = 0; i < CHECKPOINTS; i++) {
    const ref = `fuzz-${SEED}-${i}`;
    const paused = await send("POST", `${pick(replicas).url}/orchestrate/custom`, {
      steps: [{ tool: "hitl-tool", capability: "charge", params: { amount: 5, ref } }],
    });
    assert.is(paused.status, 202, paused.text);
    runs.push({ id: (JSON.parse(paused.text) as { checkpoint_id: string }).checkpoint_id, ref });
  }
  assert.equal(await charges(), {}, "nothing is charged before any approval");

  const ops: { run: number; op: Op; at: Fixture }[] = [];
  for (let run = 0; run < CHECKPOINTS; run++)
    for (let i = 0; i < OPS_PER_CHECKPOINT; i++)
      ops.push({ run, op: pick(["approve", "approve-with-parameters", "reject", "resume", "resume", "stream", "read"]), at: pick(replicas) });
  for (let i = ops.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [ops[i], ops[j]] = [ops[j]!, ops[i]!];
  }

  const approved = new Set<number>();
  const rejected = new Set<number>();
  const problems: string[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < ops.length) {
      const { run, op, at } = ops[next++]!;
      const { id, ref } = runs[run]!;
      let reply: Reply;
      if (op === "approve" || op === "approve-with-parameters" || op === "reject") {
        const action = op === "reject" ? "reject" : "approve";
        const parameters = op === "approve-with-parameters" ? { parameters: { amount: 6, ref } } : {};
        reply = await send("POST", `${at.url}/hitl/command`, { checkpoint_id: id, action, reason: "fuzz", ...parameters });
        if (reply.status === 200) (action === "approve" ? approved : rejected).add(run);
      } else if (op === "resume") reply = await send("POST", `${at.url}/hitl/resume/${id}`);
      else if (op === "stream") reply = await send("GET", `${at.url}/hitl/auto-resume/${id}/stream`);
      else reply = await send("GET", `${at.url}/hitl/checkpoints/${id}`);
      if (reply.status >= 500) problems.push(`${op} ${id} → ${reply.status}: ${reply.text.slice(0, 200)}`);
      if (![200, 202, 400, 409].includes(reply.status)) problems.push(`${op} ${id} → unexpected ${reply.status}: ${reply.text.slice(0, 200)}`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  assert.equal(problems, [], problems.join("\n"));

  for (let run = 0; run < CHECKPOINTS; run++)
    assert.ok(!(approved.has(run) && rejected.has(run)), `checkpoint ${runs[run]!.id} was both approved and rejected`);
  let by = await charges();
  for (let run = 0; run < CHECKPOINTS; run++) {
    const count = by[runs[run]!.ref] ?? 0;
    assert.ok(count <= 1, `${runs[run]!.ref} charged ${count} times`);
    if (count === 1) assert.ok(approved.has(run), `${runs[run]!.ref} charged without an accepted approval`);
  }

  // An accepted approval is never lost: whatever the race left, one more resume runs what is left, once.
  for (const run of approved) {
    if ((by[runs[run]!.ref] ?? 0) === 1) continue;
    const reply = await send("POST", `${pick(replicas).url}/hitl/resume/${runs[run]!.id}`);
    assert.is(reply.status, 200, `${runs[run]!.id}: ${reply.text.slice(0, 300)}`);
  }
  by = await charges();
  for (let run = 0; run < CHECKPOINTS; run++) assert.is(by[runs[run]!.ref] ?? 0, approved.has(run) ? 1 : 0, `charges of ${runs[run]!.ref}`);
  assert.ok(approved.size > 0 && rejected.size > 0, `both decisions happened (${approved.size} approved, ${rejected.size} rejected)`);
});

test.run();
