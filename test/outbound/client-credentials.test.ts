/**
 * The client_credentials source against a real token endpoint on loopback; time is a fake clock
 * whose timers are queued, so the refresh and retry waits are asserted exactly and fired on demand.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { ManifoldError } from "../../runtime/errors/index.js";
import { refreshWaitMs } from "../../runtime/outbound/client-credentials.js";
import { createCaller, createClientCredentialsSource } from "../../runtime/outbound/index.js";
import type { Logger } from "../../runtime/telemetry/index.js";
import type { Clock, ClockTimer } from "../../runtime/util/index.js";
import { eventually } from "../support/wait.js";
import { startRecorder } from "./support.js";

interface FakeTimer {
  readonly ms: number;
  readonly fire: () => void;
  cleared: boolean;
}

/** A clock whose timers wait in a queue: the test reads their delays and fires them one at a time. */
function createFakeTimers(): Clock & { pending(): FakeTimer[]; fireNext(): Promise<void> } {
  const timers: FakeTimer[] = [];
  return {
    now: () => 0,
    setTimeout: (callback, ms) => {
      const timer: FakeTimer = { ms, fire: callback, cleared: false };
      timers.push(timer);
      return timer as unknown as ClockTimer;
    },
    clearTimeout: (handle) => {
      if (handle !== undefined) (handle as unknown as FakeTimer).cleared = true;
    },
    pending: () => timers.filter((t) => !t.cleared),
    async fireNext() {
      const next = timers.find((t) => !t.cleared);
      if (next === undefined) throw new Error("no timer pending");
      next.cleared = true;
      next.fire();
      // Every finished token request, answered or failed, schedules the next wait.
      await eventually("the token request to finish", () => timers.some((t) => !t.cleared));
    },
  };
}

const quiet = Object.assign(() => undefined, { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined }) as Logger;

type Reply = { status: number; body: unknown };

async function startTokenEndpoint(replies: Reply[]) {
  let n = 0;
  return startRecorder((_req, res) => {
    const reply = replies[Math.min(n++, replies.length - 1)]!;
    res.writeHead(reply.status, { "content-type": "application/json" }).end(JSON.stringify(reply.body));
  });
}

const test = suite("client_credentials");

test("posts the grant as a form, uses access_token, and refreshes at 80 % of expires_in", async () => {
  const endpoint = await startTokenEndpoint([
    { status: 200, body: { access_token: "first-token", expires_in: 100, token_type: "Bearer" } },
    { status: 200, body: { access_token: "second-token", expires_in: 3600 } },
  ]);
  const tool = await startRecorder();
  const timers = createFakeTimers();
  try {
    const source = createClientCredentialsSource({
      tokenUrl: `${endpoint.url}/oauth/token`,
      clientId: "my-client",
      clientSecret: "very-secret",
      scope: "tools.read tools.write",
      clock: timers,
      log: quiet,
    });
    const caller = createCaller({ token: source, env: {} });
    const call = () => caller.call({ url: `${tool.url}/c`, body: {}, name: "c" });
    await Promise.all([call(), call(), call()]);
    assert.is(endpoint.received.length, 1, "concurrent first calls share one token request");
    const grant = endpoint.received[0]!;
    assert.is(grant.url, "/oauth/token");
    assert.is(grant.headers["content-type"], "application/x-www-form-urlencoded;charset=UTF-8");
    assert.equal(Object.fromEntries(new URLSearchParams(grant.body)), {
      grant_type: "client_credentials",
      client_id: "my-client",
      client_secret: "very-secret",
      scope: "tools.read tools.write",
    });
    assert.ok(tool.received.every((r) => r.headers["authorization"] === "Bearer first-token"));
    assert.equal(
      timers.pending().map((t) => t.ms),
      [80_000],
      "refresh scheduled at 0.8 × 100 s",
    );

    await timers.fireNext();
    assert.is(endpoint.received.length, 2);
    await call();
    assert.is(tool.received.at(-1)!.headers["authorization"], "Bearer second-token");
    assert.equal(
      timers.pending().map((t) => t.ms),
      [2_880_000],
      "next refresh at 0.8 × 3600 s",
    );
    assert.not.match(JSON.stringify(source), "very-secret");
    assert.not.match(JSON.stringify(source), "second-token");
    source.stop();
    assert.equal(timers.pending(), []);
  } finally {
    await Promise.all([endpoint.close(), tool.close()]);
  }
});

test("a failed request retries after 30 s; until then calls fail UNAVAILABLE without quoting the endpoint's body", async () => {
  const endpoint = await startTokenEndpoint([
    { status: 500, body: { error: "server_error", echoed: "very-secret" } },
    { status: 200, body: { access_token: "late-token", expires_in: 60 } },
  ]);
  const timers = createFakeTimers();
  const warnings: string[] = [];
  const log = Object.assign(() => undefined, { ...quiet, warn: (m: string) => void warnings.push(m) }) as Logger;
  try {
    const source = createClientCredentialsSource({
      tokenUrl: `${endpoint.url}/token?tenant=x`,
      clientId: "c",
      clientSecret: "very-secret",
      clock: timers,
      log,
    });
    const error = await source.token().then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.instance(error, ManifoldError);
    assert.is((error as ManifoldError).code, "UNAVAILABLE");
    assert.match((error as ManifoldError).message, /answered 500/);
    assert.not.match((error as ManifoldError).message, "very-secret");
    assert.not.match((error as ManifoldError).message, "tenant=x");
    assert.equal(
      timers.pending().map((t) => t.ms),
      [30_000],
    );
    assert.ok(warnings.some((w) => /retrying in 30000 ms/.test(w)));
    // Waiting for the retry, a call does not hammer the endpoint.
    await source.token().catch(() => undefined);
    assert.is(endpoint.received.length, 1);
    await timers.fireNext();
    assert.is(await source.token(), "late-token");
    assert.equal(
      timers.pending().map((t) => t.ms),
      [48_000],
    );
    source.stop();
  } finally {
    await endpoint.close();
  }
});

test("a computed wait that is not positive (expires_in 0, negative or missing) retries after 30 s", async () => {
  for (const expires of [0, -5, undefined, "soon"]) {
    const endpoint = await startTokenEndpoint([{ status: 200, body: { access_token: "t-token", expires_in: expires } }]);
    const timers = createFakeTimers();
    try {
      const source = createClientCredentialsSource({ tokenUrl: endpoint.url, clientId: "c", clientSecret: "s3cret", clock: timers, log: quiet });
      assert.is(await source.token(), "t-token", `expires_in ${String(expires)}`);
      assert.equal(
        timers.pending().map((t) => t.ms),
        [30_000],
        `expires_in ${String(expires)}`,
      );
      source.stop();
    } finally {
      await endpoint.close();
    }
  }
});

test("an access_token with a Bearer prefix, or none at all, is refused", async () => {
  for (const body of [{ access_token: "Bearer abc-token", expires_in: 60 }, { expires_in: 60 }]) {
    const endpoint = await startTokenEndpoint([{ status: 200, body }]);
    const timers = createFakeTimers();
    try {
      const source = createClientCredentialsSource({ tokenUrl: endpoint.url, clientId: "c", clientSecret: "s3cret", clock: timers, log: quiet });
      const error = await source.token().then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.instance(error, ManifoldError);
      assert.not.match((error as Error).message, "abc-token");
      assert.equal(
        timers.pending().map((t) => t.ms),
        [30_000],
      );
      source.stop();
    } finally {
      await endpoint.close();
    }
  }
});

test("the refresh wait: 80 % of expires_in in ms, else the retry wait", () => {
  assert.is(refreshWaitMs(100, 30_000), 80_000);
  assert.is(refreshWaitMs(3600, 30_000), 2_880_000);
  for (const expires of [0, -5, Number.NaN, Number.POSITIVE_INFINITY]) assert.is(refreshWaitMs(expires, 30_000), 30_000, String(expires));
});

test.run();
