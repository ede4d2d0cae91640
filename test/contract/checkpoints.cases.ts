/**
 * The checkpoint store contract: one suite, run against every adapter (checkpoints-memory.test.ts,
 * checkpoints-redis.test.ts, checkpoints-cluster.test.ts). Each test gets a fresh, empty store (a new
 * namespace on Redis). `replica()` is another processor on the same data: a second connection on
 * Redis, the same store in memory (whose concurrency is calls interleaving in one process). No case is
 * skipped for any adapter.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { isManifoldError, type ManifoldError } from "../../runtime/errors/index.js";
import {
  CHECKPOINT_TRANSITIONS,
  newCheckpointId,
  type Checkpoint,
  type CheckpointStatus,
  type CheckpointStore,
  type NewCheckpoint,
} from "../../runtime/hitl/index.js";
import type { Plan } from "../../runtime/orchestration/index.js";
import { sleep } from "../support/wait.js";

export interface CheckpointsUnderTest {
  readonly checkpoints: CheckpointStore;
  /** Another store over the same data, as a second replica would hold. */
  replica(): Promise<CheckpointStore>;
}
export interface CheckpointFactoryOptions {
  readonly retentionMs?: number;
  readonly maxRecordBytes?: number;
}
export type CheckpointStoreFactory = (options: CheckpointFactoryOptions) => Promise<CheckpointsUnderTest>;

const BASE = Date.parse("2030-06-01T00:00:00.000Z");
const iso = (ms: number): string => new Date(ms).toISOString();

const PLAN: Plan = {
  plan_id: "natural-1780272000000000000",
  original_request: "Plan a trip to Kyoto and convert 120.5 EUR to JPY",
  mode: "natural",
  steps: [
    {
      step_id: "geocode",
      agent_name: "geocoding-service",
      depends_on: [],
      metadata: { capability: "geocode_location", parameters: { location: "Kyoto" } },
      on_error: "fail",
    },
    {
      step_id: "convert",
      agent_name: "currency-service",
      depends_on: ["geocode"],
      metadata: { capability: "convert_currency", parameters: { amount: 120.5, from: "EUR", to: "{{geocode.response.data.currency}}" } },
      timeout_ms: 5000,
      retry: 1,
      on_error: "continue",
    },
  ],
};

/** A step checkpoint with every optional field set; empty arrays and objects must come back as they went in. */
export function stepCheckpoint(more: Partial<NewCheckpoint> = {}): NewCheckpoint {
  return {
    checkpoint_id: newCheckpointId(),
    type: "step",
    agent_name: "travel-agent",
    agent_url: "http://127.0.0.1:8094",
    request_mode: "non_streaming",
    plan: PLAN,
    current_step: { step_id: "convert", index: 1 },
    resolved_parameters: { amount: 120.5, from: "EUR", to: "JPY", tags: [], nested: { empty: {} } },
    decision: { reason: "convert_currency is a sensitive capability", sensitive_matches: ["convert_currency"] },
    original_request: { request: "Plan a trip to Kyoto and convert 120.5 EUR to JPY", ai_synthesis: false, precise: 0.1234567890123456 },
    user_context: { conversation_id: "conv-1", session_id: "sess-1" },
    original_request_id: "req-0001",
    trace: { traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", tracestate: "vendor=1" },
    completed_steps: [{ step_id: "geocode", status: "completed", output: { lat: 35.0116, lon: 135.7681, currency: "JPY" }, duration_ms: 12 }],
    default_action: "reject",
    created_at: iso(BASE),
    expires_at: iso(BASE + 5 * 60_000),
    ...more,
  };
}

/** A plan checkpoint: no step, no resolved parameters, no agent URL, no trace (the keys absent, not undefined). */
function planCheckpoint(more: Partial<NewCheckpoint> = {}): NewCheckpoint {
  const { current_step: _s, resolved_parameters: _p, agent_url: _u, trace: _t, ...rest } = stepCheckpoint();
  return { ...rest, type: "plan", request_mode: "streaming", completed_steps: [], user_context: {}, ...more };
}

async function rejection(run: () => Promise<unknown>, code: string): Promise<ManifoldError> {
  let caught: unknown;
  try {
    await run();
    caught = new Error(`expected ${code}, got a result`);
  } catch (error) {
    caught = error;
  }
  assert.ok(isManifoldError(caught), `expected a ManifoldError ${code}, got ${String(caught)}`);
  const error = caught as ManifoldError;
  assert.is(error.code, code, error.message);
  return error;
}

async function conflict(run: () => Promise<unknown>, status: CheckpointStatus): Promise<ManifoldError> {
  const error = await rejection(run, "CONFLICT");
  assert.is(error.status, 409);
  assert.is(error.details?.[0]?.["status"], status, "details name the status the checkpoint has");
  return error;
}

async function throwsRange(run: () => Promise<unknown>, what: string): Promise<void> {
  try {
    await run();
  } catch (error) {
    assert.instance(error, RangeError, what);
    return;
  }
  assert.unreachable(what);
}

/** The legal changes, written out here so the table cannot drift from what the tests hold. */
const EXPECTED_TABLE = {
  pending: { approve: "approved", reject: "rejected", expire_approve: "expired_approved", expire_reject: "expired" },
  approved: { resume: "resumed" },
  expired_approved: { resume: "resumed" },
  rejected: {},
  expired: {},
  resumed: { release: "approved", fail: "failed" },
  failed: {},
};

type Attempt = "approve" | "reject" | "resume";
const ATTEMPTS: readonly Attempt[] = ["approve", "reject", "resume"];

export function checkpointStoreCases(name: string, create: CheckpointStoreFactory, teardown: () => Promise<void> = async () => undefined): void {
  const test = suite(`checkpoint store contract (${name})`);
  test.after(teardown);

  test("create then get returns every field as stored; a plan checkpoint keeps its absent fields absent; unknown ids are NOT_FOUND", async () => {
    const { checkpoints } = await create({});
    const step = stepCheckpoint();
    const created = await checkpoints.create(step);
    assert.equal(created, { ...step, status: "pending" });
    assert.equal(await checkpoints.get(step.checkpoint_id), { ...step, status: "pending" });
    const plan = planCheckpoint();
    await checkpoints.create(plan);
    const got = (await checkpoints.get(plan.checkpoint_id))!;
    assert.equal(got, { ...plan, status: "pending" });
    for (const key of ["current_step", "resolved_parameters", "agent_url", "trace", "resolution", "resumed_at"]) assert.not.ok(key in got, key);
    const unknown = newCheckpointId();
    assert.is(await checkpoints.get(unknown), undefined);
    const error = await rejection(() => checkpoints.command(unknown, "approve", { now: BASE }), "NOT_FOUND");
    assert.is(error.status, 404);
    await rejection(() => checkpoints.claimResume(unknown, BASE), "NOT_FOUND");
  });

  test("a taken id is CONFLICT and leaves the first record; a malformed checkpoint is a RangeError", async () => {
    const { checkpoints } = await create({});
    const first = stepCheckpoint();
    await checkpoints.create(first);
    await checkpoints.command(first.checkpoint_id, "approve", { now: BASE + 1 });
    await rejection(() => checkpoints.create({ ...first, agent_name: "other-agent" }), "CONFLICT");
    const kept = (await checkpoints.get(first.checkpoint_id))!;
    assert.equal([kept.status, kept.agent_name], ["approved", "travel-agent"]);
    await throwsRange(() => checkpoints.create(stepCheckpoint({ checkpoint_id: "cp-1234" })), "short id");
    await throwsRange(() => checkpoints.create(stepCheckpoint({ type: "other" as "plan" })), "type");
    await throwsRange(() => checkpoints.create(stepCheckpoint({ expires_at: "soon" })), "expires_at");
    await throwsRange(() => checkpoints.create(stepCheckpoint({ default_action: "maybe" as "approve" })), "default_action");
  });

  test("the exported transition table is the one this suite holds", () => {
    assert.equal(CHECKPOINT_TRANSITIONS, EXPECTED_TABLE);
  });

  test("every legal transition: approve and reject (with and without a reason), expiry by each default action, resume from approved and expired_approved", async () => {
    const { checkpoints } = await create({});
    const approveMe = stepCheckpoint();
    const rejectMe = stepCheckpoint();
    const expireApprove = stepCheckpoint({ default_action: "approve", expires_at: iso(BASE + 100) });
    const expireReject = stepCheckpoint({ default_action: "reject", expires_at: iso(BASE + 100) });
    for (const c of [approveMe, rejectMe, expireApprove, expireReject]) await checkpoints.create(c);

    const approved = await checkpoints.command(approveMe.checkpoint_id, "approve", { reason: "looks fine", now: BASE + 10 });
    assert.equal(approved, { ...approveMe, status: "approved", resolution: { action: "approve", reason: "looks fine", at: iso(BASE + 10) } });
    const rejected = await checkpoints.command(rejectMe.checkpoint_id, "reject", { now: BASE + 11 });
    assert.equal(rejected, { ...rejectMe, status: "rejected", resolution: { action: "reject", at: iso(BASE + 11) } });

    const expired = await checkpoints.expireDue(BASE + 100, 10);
    const byId = new Map(expired.map((c) => [c.checkpoint_id, c]));
    assert.is(expired.length, 2);
    assert.equal(byId.get(expireApprove.checkpoint_id), {
      ...expireApprove,
      status: "expired_approved",
      resolution: { action: "expire", at: iso(BASE + 100) },
    });
    assert.equal(byId.get(expireReject.checkpoint_id), { ...expireReject, status: "expired", resolution: { action: "expire", at: iso(BASE + 100) } });

    const resumed = await checkpoints.claimResume(approveMe.checkpoint_id, BASE + 20);
    assert.equal(resumed, { ...approved, status: "resumed", resumed_at: iso(BASE + 20) });
    const resumedLate = await checkpoints.claimResume(expireApprove.checkpoint_id, BASE + 200);
    assert.equal(resumedLate, { ...byId.get(expireApprove.checkpoint_id)!, status: "resumed", resumed_at: iso(BASE + 200) });
    for (const c of [resumed, rejected, resumedLate, byId.get(expireReject.checkpoint_id)!]) assert.equal(await checkpoints.get(c.checkpoint_id), c);
  });

  test("every refused transition, from each status, is 409 CONFLICT naming the status and changes nothing; expiry never touches a decided checkpoint", async () => {
    const { checkpoints } = await create({});
    const early = BASE + 1;
    const make = async (more: Partial<NewCheckpoint> = {}) =>
      (await checkpoints.create(stepCheckpoint({ expires_at: iso(BASE + 60_000), ...more }))).checkpoint_id;
    const ids: Record<CheckpointStatus, string> = {
      pending: await make(),
      approved: await make(),
      rejected: await make(),
      expired_approved: await make({ default_action: "approve", expires_at: iso(BASE - 1) }),
      expired: await make({ default_action: "reject", expires_at: iso(BASE - 1) }),
      resumed: await make(),
      failed: await make(),
    };
    await checkpoints.command(ids.failed, "approve", { now: early });
    await checkpoints.claimResume(ids.failed, early);
    await checkpoints.releaseResume(ids.failed, { attempts: 0, now: early, maxAttempts: 1 });
    await checkpoints.command(ids.approved, "approve", { now: early });
    await checkpoints.command(ids.rejected, "reject", { now: early });
    await checkpoints.command(ids.resumed, "approve", { now: early });
    await checkpoints.claimResume(ids.resumed, early);
    assert.is((await checkpoints.expireDue(BASE, 10)).length, 2);

    let refusedCount = 0;
    for (const [status, id] of Object.entries(ids) as [CheckpointStatus, string][]) {
      const before = (await checkpoints.get(id))!;
      assert.is(before.status, status);
      for (const attempt of ATTEMPTS) {
        const row: Readonly<Record<string, string>> = EXPECTED_TABLE[status];
        if (row[attempt] !== undefined) continue; // legal: the case above
        refusedCount += 1;
        const run = () => (attempt === "resume" ? checkpoints.claimResume(id, early + 5) : checkpoints.command(id, attempt, { reason: "no", now: early + 5 }));
        await conflict(run, status);
        assert.equal(await checkpoints.get(id), before, `${attempt} from ${status} changed nothing`);
      }
    }
    assert.is(refusedCount, 7 * 3 - 4, "every pair but the four legal ones was tried");
    for (const [status, id] of Object.entries(ids) as [CheckpointStatus, string][]) {
      if (status === "resumed") continue;
      await conflict(() => checkpoints.releaseResume(id, { attempts: 0, now: early + 6, maxAttempts: 5 }), status);
    }

    const later = await checkpoints.expireDue(BASE + 3_600_000, 100);
    assert.equal(
      later.map((c) => c.checkpoint_id),
      [ids.pending],
      "only the pending one expires",
    );
  });

  test("past expires_at a command is refused even before any expiry pass ran; the pass then applies the default action", async () => {
    const { checkpoints } = await create({});
    const late = stepCheckpoint({ default_action: "approve", expires_at: iso(BASE + 1000) });
    const inTime = stepCheckpoint({ expires_at: iso(BASE + 1000) });
    await checkpoints.create(late);
    await checkpoints.create(inTime);
    for (const action of ["approve", "reject"] as const) {
      const error = await conflict(() => checkpoints.command(late.checkpoint_id, action, { now: BASE + 1000 }), "pending");
      assert.is(error.details?.[0]?.["expired"], true);
      assert.match(error.message, /expired at 2030-06-01T00:00:01.000Z/);
    }
    assert.is((await checkpoints.get(late.checkpoint_id))!.status, "pending");
    assert.is((await checkpoints.command(inTime.checkpoint_id, "approve", { now: BASE + 999 })).status, "approved", "one ms before expiry is in time");
    const [expired] = await checkpoints.expireDue(BASE + 1000, 10);
    assert.equal([expired?.checkpoint_id, expired?.status], [late.checkpoint_id, "expired_approved"]);
    await conflict(() => checkpoints.command(late.checkpoint_id, "approve", { now: BASE + 2000 }), "expired_approved");
  });

  test("50 concurrent approve/reject pairs over two processors: each checkpoint has exactly one winner, the loser gets 409", async () => {
    const { checkpoints, replica } = await create({});
    const other = await replica();
    const made = await Promise.all(Array.from({ length: 50 }, () => checkpoints.create(stepCheckpoint())));
    const settled = await Promise.all(
      made.flatMap((c, i) => {
        const approve = () => (i % 2 === 0 ? checkpoints : other).command(c.checkpoint_id, "approve", { reason: "yes", now: BASE + 1 });
        const reject = () => (i % 2 === 0 ? other : checkpoints).command(c.checkpoint_id, "reject", { reason: "no", now: BASE + 1 });
        return (i % 3 === 0 ? [reject, approve] : [approve, reject]).map((run) =>
          run().then(
            (value) => ({ value }),
            (error: unknown) => ({ error }),
          ),
        );
      }),
    );
    let approvals = 0;
    for (const [i, c] of made.entries()) {
      const pair = settled.slice(2 * i, 2 * i + 2);
      const won = pair.flatMap((r) => ("value" in r ? [r.value] : []));
      const lost = pair.flatMap((r) => ("error" in r ? [r.error] : []));
      assert.is(won.length, 1, `${c.checkpoint_id}: one winner`);
      const winner = won[0]!;
      if (winner.status === "approved") approvals += 1;
      assert.ok(
        isManifoldError(lost[0]) && lost[0].code === "CONFLICT" && lost[0].details?.[0]?.["status"] === winner.status,
        "the loser is told the winner's status",
      );
      assert.equal(await checkpoints.get(c.checkpoint_id), winner);
    }
    assert.ok(approvals > 0 && approvals < 50, `both sides won some races (${approvals} approvals)`);
  });

  test("two concurrent resume claims: one runs, the other gets 409", async () => {
    const { checkpoints, replica } = await create({});
    const other = await replica();
    const made = await Promise.all(Array.from({ length: 20 }, () => checkpoints.create(stepCheckpoint())));
    for (const c of made) await checkpoints.command(c.checkpoint_id, "approve", { now: BASE + 1 });
    for (const c of made) {
      const results = await Promise.allSettled([checkpoints.claimResume(c.checkpoint_id, BASE + 2), other.claimResume(c.checkpoint_id, BASE + 3)]);
      const won = results.filter((r) => r.status === "fulfilled");
      assert.is(won.length, 1);
      const lost = results.find((r) => r.status === "rejected")!;
      assert.ok(isManifoldError(lost.reason) && lost.reason.code === "CONFLICT");
      assert.is((await checkpoints.get(c.checkpoint_id))!.resumed_at, (won[0] as PromiseFulfilledResult<Checkpoint>).value.resumed_at);
    }
  });

  test("a released resume claim returns to where it was claimed from, attempts counted; at the cap it is failed; a failed checkpoint never resumes", async () => {
    const { checkpoints } = await create({});
    const byHuman = stepCheckpoint();
    const byDefault = stepCheckpoint({ default_action: "approve", expires_at: iso(BASE + 100) });
    for (const c of [byHuman, byDefault]) await checkpoints.create(c);
    const approved = await checkpoints.command(byHuman.checkpoint_id, "approve", { now: BASE + 1 });
    const [expired] = await checkpoints.expireDue(BASE + 100, 10);
    for (const [before, claimedAt] of [
      [approved, BASE + 2],
      [expired!, BASE + 200],
    ] as const) {
      await checkpoints.claimResume(before.checkpoint_id, claimedAt);
      const released = await checkpoints.releaseResume(before.checkpoint_id, { attempts: 0, now: claimedAt + 1, maxAttempts: 3 });
      assert.equal(released, { ...before, attempts: 1 }, "back to its status, no resumed_at, one attempt");
      assert.equal(await checkpoints.get(before.checkpoint_id), released);
      const again = await checkpoints.claimResume(before.checkpoint_id, claimedAt + 2);
      assert.equal([again.status, again.attempts, again.resumed_at], ["resumed", 1, iso(claimedAt + 2)]);
      // A stale release (the attempts this claim did not see) changes nothing.
      const stale = await conflict(() => checkpoints.releaseResume(before.checkpoint_id, { attempts: 0, now: claimedAt + 3, maxAttempts: 3 }), "resumed");
      assert.is(stale.details?.[0]?.["attempts"], 1);
      assert.equal(await checkpoints.get(before.checkpoint_id), again);
      await checkpoints.releaseResume(before.checkpoint_id, { attempts: 1, now: claimedAt + 4, maxAttempts: 3 });
      await checkpoints.claimResume(before.checkpoint_id, claimedAt + 5);
      const failed = await checkpoints.releaseResume(before.checkpoint_id, { attempts: 2, now: claimedAt + 6, maxAttempts: 3 });
      assert.equal(failed, { ...before, status: "failed", attempts: 3 }, "the third failed resume is the last");
      await conflict(() => checkpoints.claimResume(before.checkpoint_id, claimedAt + 7), "failed");
      assert.equal(
        (await checkpoints.list({ status: "failed" })).checkpoints.map((c) => c.checkpoint_id).includes(before.checkpoint_id),
        true,
        "listed under failed",
      );
    }
    await throwsRange(() => checkpoints.releaseResume(byHuman.checkpoint_id, { attempts: -1, now: BASE, maxAttempts: 3 }), "attempts");
    await rejection(() => checkpoints.releaseResume(newCheckpointId(), { attempts: 0, now: BASE, maxAttempts: 3 }), "NOT_FOUND");
  });

  test("after a released claim, two concurrent releases of it and then two concurrent claims: one of each wins, the other gets 409", async () => {
    const { checkpoints, replica } = await create({});
    const other = await replica();
    const made = await Promise.all(Array.from({ length: 20 }, () => checkpoints.create(stepCheckpoint())));
    for (const c of made) {
      await checkpoints.command(c.checkpoint_id, "approve", { now: BASE + 1 });
      await checkpoints.claimResume(c.checkpoint_id, BASE + 2);
      const releases = await Promise.allSettled([
        checkpoints.releaseResume(c.checkpoint_id, { attempts: 0, now: BASE + 3, maxAttempts: 5 }),
        other.releaseResume(c.checkpoint_id, { attempts: 0, now: BASE + 3, maxAttempts: 5 }),
      ]);
      assert.is(releases.filter((r) => r.status === "fulfilled").length, 1, "a claim is released once");
      assert.equal([(await checkpoints.get(c.checkpoint_id))!.status, (await checkpoints.get(c.checkpoint_id))!.attempts], ["approved", 1]);
      const claims = await Promise.allSettled([checkpoints.claimResume(c.checkpoint_id, BASE + 4), other.claimResume(c.checkpoint_id, BASE + 5)]);
      assert.is(claims.filter((r) => r.status === "fulfilled").length, 1, "one resume runs");
      const lost = claims.find((r) => r.status === "rejected")!;
      assert.ok(isManifoldError(lost.reason) && lost.reason.code === "CONFLICT");
    }
  });

  test("three processors expiring 300 due checkpoints in small passes: each claimed exactly once, by its default action; the not yet due untouched", async () => {
    const { checkpoints, replica } = await create({});
    const processors = [checkpoints, await replica(), await replica()];
    const due = Array.from({ length: 300 }, (_, i) =>
      stepCheckpoint({ default_action: i % 3 === 0 ? "approve" : "reject", created_at: iso(BASE - 600_000), expires_at: iso(BASE - 1 - (i % 17)) }),
    );
    const notYet = Array.from({ length: 30 }, (_, i) => stepCheckpoint({ expires_at: iso(BASE + 1 + i) }));
    await Promise.all([...due, ...notYet].map((c) => checkpoints.create(c)));
    assert.is(await checkpoints.nextExpiry(), BASE - 17);

    const claimed: Checkpoint[][] = [[], [], []];
    await Promise.all(
      processors.map(async (processor, p) => {
        for (;;) {
          const moved = await processor.expireDue(BASE, 7);
          if (moved.length === 0) return;
          assert.ok(moved.length <= 7);
          claimed[p]!.push(...moved);
        }
      }),
    );
    const all = claimed.flat();
    assert.is(all.length, 300, `per processor: ${claimed.map((c) => c.length).join(", ")}`);
    assert.is(new Set(all.map((c) => c.checkpoint_id)).size, 300, "no checkpoint claimed twice");
    const wanted = new Map(due.map((c) => [c.checkpoint_id, c.default_action === "approve" ? "expired_approved" : "expired"]));
    for (const c of all) {
      assert.is(c.status, wanted.get(c.checkpoint_id));
      assert.equal(c.resolution, { action: "expire", at: iso(BASE) });
    }
    for (const c of notYet) assert.is((await checkpoints.get(c.checkpoint_id))!.status, "pending");
    assert.is(await checkpoints.nextExpiry(), BASE + 1);
    const pendingPage = await checkpoints.list({ status: "pending", limit: 100 });
    assert.is(pendingPage.checkpoints.length, 30);
  });

  test("a record past the size limit is PAYLOAD_TOO_LARGE and not stored; an overlong reason is INVALID_INPUT", async () => {
    const { checkpoints } = await create({});
    const huge = stepCheckpoint({ original_request: { text: "x".repeat(300 * 1024) } });
    const error = await rejection(() => checkpoints.create(huge), "PAYLOAD_TOO_LARGE");
    assert.is(error.status, 413);
    assert.match(error.message, /at most 262144/);
    assert.is(await checkpoints.get(huge.checkpoint_id), undefined);
    const { checkpoints: small } = await create({ maxRecordBytes: 4096 });
    await rejection(() => small.create(stepCheckpoint({ completed_steps: [{ output: "y".repeat(4096) }] })), "PAYLOAD_TOO_LARGE");
    const fits = await small.create(stepCheckpoint());
    await rejection(() => small.command(fits.checkpoint_id, "approve", { reason: "z".repeat(2001), now: BASE }), "INVALID_INPUT");
    assert.equal(await small.get(fits.checkpoint_id), fits);
  });

  test("list: newest first (ties by id), filtered by status, type and agent, paged by cursor without gaps or repeats", async () => {
    const { checkpoints } = await create({});
    const made: NewCheckpoint[] = [];
    for (let i = 0; i < 9; i++) {
      made.push(
        stepCheckpoint({
          created_at: iso(BASE + (i === 8 ? 7 : i) * 1000),
          type: i % 3 === 0 ? "plan" : "step",
          agent_name: i % 2 === 0 ? "travel-agent" : "other-agent",
        }),
      );
    }
    for (const c of made) await checkpoints.create(c);
    await checkpoints.command(made[1]!.checkpoint_id, "approve", { now: BASE });
    await checkpoints.command(made[2]!.checkpoint_id, "reject", { now: BASE });
    const newestFirst = [...made].sort((a, b) => b.created_at.localeCompare(a.created_at) || b.checkpoint_id.localeCompare(a.checkpoint_id));
    const ids = (list: readonly { checkpoint_id: string }[]) => list.map((c) => c.checkpoint_id);

    const everything = await checkpoints.list();
    assert.equal(ids(everything.checkpoints), ids(newestFirst));
    assert.is(everything.next_cursor, undefined);
    const pending = newestFirst.filter((c) => c !== made[1] && c !== made[2]);
    assert.equal(ids((await checkpoints.list({ status: "pending" })).checkpoints), ids(pending));
    assert.equal(ids((await checkpoints.list({ status: "approved" })).checkpoints), [made[1]!.checkpoint_id]);
    assert.equal(ids((await checkpoints.list({ type: "plan" })).checkpoints), ids(newestFirst.filter((c) => c.type === "plan")));
    assert.equal(ids((await checkpoints.list({ agent_name: "other-agent" })).checkpoints), ids(newestFirst.filter((c) => c.agent_name === "other-agent")));
    assert.equal(
      ids((await checkpoints.list({ status: "pending", type: "step", agent_name: "travel-agent" })).checkpoints),
      ids(pending.filter((c) => c.type === "step" && c.agent_name === "travel-agent")),
    );
    assert.equal((await checkpoints.list({ status: "resumed" })).checkpoints, []);
    assert.equal((await checkpoints.list({ agent_name: "nobody" })).checkpoints, []);

    for (const filter of [{}, { agent_name: "travel-agent" }, { status: "pending" as const }]) {
      const pages: string[] = [];
      let cursor: string | undefined;
      let rounds = 0;
      do {
        const page = await checkpoints.list({ ...filter, limit: 2, ...(cursor === undefined ? {} : { cursor }) });
        assert.ok(page.checkpoints.length <= 2);
        pages.push(...ids(page.checkpoints));
        cursor = page.next_cursor;
        rounds += 1;
      } while (cursor !== undefined && rounds < 20);
      assert.equal(pages, ids((await checkpoints.list(filter)).checkpoints), JSON.stringify(filter));
    }

    for (const bad of [{ limit: 0 }, { limit: 101 }, { limit: 1.5 }, { status: "open" as CheckpointStatus }])
      await throwsRange(() => checkpoints.list(bad), JSON.stringify(bad));
    for (const cursor of ["nonsense", "000000000000001:cp-x", "__proto__"]) await rejection(() => checkpoints.list({ cursor }), "INVALID_INPUT");
  });

  test("prototype keys: as ids they are unknown, in user context, agent names and request bodies they are plain data", async () => {
    const { checkpoints } = await create({});
    for (const id of ["__proto__", "constructor", "prototype", "cp-__proto__"]) {
      assert.is(await checkpoints.get(id), undefined, id);
      await rejection(() => checkpoints.command(id, "approve", { now: BASE }), "NOT_FOUND");
      await rejection(() => checkpoints.claimResume(id, BASE), "NOT_FOUND");
    }
    await throwsRange(() => checkpoints.create(stepCheckpoint({ checkpoint_id: "__proto__" })), "__proto__ as an id");
    const hostile = JSON.parse('{"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}}') as Record<string, unknown>;
    const odd = stepCheckpoint({
      agent_name: "constructor",
      user_context: { conversation_id: "__proto__", session_id: "constructor" },
      original_request: hostile,
      resolved_parameters: hostile,
      completed_steps: [hostile],
    });
    await checkpoints.create(odd);
    const got = (await checkpoints.get(odd.checkpoint_id))!;
    assert.equal(got.user_context, { conversation_id: "__proto__", session_id: "constructor" });
    assert.ok(Object.hasOwn(got.original_request as object, "__proto__"), "kept as an own key");
    assert.equal(JSON.stringify(got.original_request), JSON.stringify(hostile));
    assert.is(({} as Record<string, unknown>)["polluted"], undefined, "nothing polluted");
    assert.equal(
      (await checkpoints.list({ agent_name: "constructor" })).checkpoints.map((c) => c.checkpoint_id),
      [odd.checkpoint_id],
    );
    assert.equal((await checkpoints.list({ agent_name: "__proto__" })).checkpoints, []);
    assert.is((await checkpoints.command(odd.checkpoint_id, "approve", { reason: "__proto__", now: BASE })).resolution?.reason, "__proto__");
  });

  test("retention: decided checkpoints (terminal, or approved awaiting resume) go after it, from get and list; undecided ones stay", async () => {
    const { checkpoints } = await create({ retentionMs: 300 });
    const [rejected, resumed, approved, waiting] = [stepCheckpoint(), stepCheckpoint(), stepCheckpoint(), stepCheckpoint()];
    for (const c of [rejected, resumed, approved, waiting]) await checkpoints.create(c);
    await checkpoints.command(rejected.checkpoint_id, "reject", { now: BASE });
    await checkpoints.command(resumed.checkpoint_id, "approve", { now: BASE });
    await checkpoints.claimResume(resumed.checkpoint_id, BASE);
    await checkpoints.command(approved.checkpoint_id, "approve", { now: BASE });
    assert.is((await checkpoints.list()).checkpoints.length, 4);
    await sleep(450);
    for (const c of [rejected, resumed, approved]) assert.is(await checkpoints.get(c.checkpoint_id), undefined, c.checkpoint_id);
    await rejection(() => checkpoints.claimResume(approved.checkpoint_id, BASE), "NOT_FOUND");
    assert.is((await checkpoints.get(waiting.checkpoint_id))!.status, "pending");
    assert.equal(
      (await checkpoints.list()).checkpoints.map((c) => c.checkpoint_id),
      [waiting.checkpoint_id],
    );
    assert.equal(await checkpoints.expireDue(BASE, 10), [], "a pass purges and moves nothing not due");
    assert.equal(
      (await checkpoints.list()).checkpoints.map((c) => c.checkpoint_id),
      [waiting.checkpoint_id],
    );
  });

  test.run();
}
