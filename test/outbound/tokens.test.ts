/** Token rotation under concurrent calls: in-flight calls keep the token they started with. */
import type { ServerResponse } from "node:http";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { createClient } from "../../runtime/component/index.js";
import { createCaller, createTokenHolder } from "../../runtime/outbound/index.js";
import { withTimeout } from "../runtime/support.js";
import { tool, toolSpec } from "../support/specs.js";
import { startRecorder } from "./support.js";

const test = suite("outbound tokens");

/** A tool that holds every response until `release()`, so calls stay in flight as long as the test wants. */
async function startHoldingTool() {
  const held: ServerResponse[] = [];
  const waiters: (() => void)[] = [];
  const tool = await startRecorder((_req, res) => {
    held.push(res);
    for (const wake of waiters.splice(0)) wake();
  });
  const arrived = (n: number): Promise<void> =>
    withTimeout(
      new Promise<void>((resolve) => {
        const check = (): void => (tool.received.length >= n ? resolve() : void waiters.push(check));
        check();
      }),
      5_000,
      `${n} requests`,
    );
  const release = (): void => {
    for (const res of held.splice(0)) res.writeHead(200, { "content-type": "application/json" }).end("{}");
  };
  return { ...tool, arrived, release };
}

const tokenOf = (headers: Record<string, unknown>): unknown => headers["authorization"];

test("setToken while calls are in flight: those keep the old token, calls started after it use the new one", async () => {
  const tool = await startHoldingTool();
  try {
    const caller = createCaller({ token: "token-a", env: {} });
    const call = (i: number) => caller.call({ url: `${tool.url}/c`, body: { i }, name: "c" });
    const first = Array.from({ length: 5 }, (_, i) => call(i));
    // Rotated in the same tick as a call that has not yet reached the network: it started, so it keeps A.
    const justStarted = call(5);
    caller.setToken("token-b");
    await tool.arrived(6);
    const second = Array.from({ length: 5 }, (_, i) => call(10 + i));
    await tool.arrived(11);
    tool.release();
    await withTimeout(Promise.all([...first, justStarted, ...second]), 5_000, "all calls");
    const byIndex = new Map(tool.received.map((r) => [(JSON.parse(r.body) as { i: number }).i, tokenOf(r.headers)]));
    for (const i of [0, 1, 2, 3, 4, 5]) assert.is(byIndex.get(i), "Bearer token-a", `call ${i}`);
    for (const i of [10, 11, 12, 13, 14]) assert.is(byIndex.get(i), "Bearer token-b", `call ${i}`);
  } finally {
    await tool.close();
  }
});

const heldSpec = toolSpec(tool("held", { description: "d", capabilities: { c: {} } }));

test("a shared token holder rotates the token of every client that uses it, concurrently", async () => {
  const tool = await startHoldingTool();
  try {
    const holder = createTokenHolder("old-token");
    const clients = [
      createClient<{ c: { input: { i: number }; output: unknown } }>(heldSpec, { baseUrl: tool.url, token: holder }),
      createClient<{ c: { input: { i: number }; output: unknown } }>(heldSpec, { baseUrl: tool.url, token: holder }),
    ];
    const before = clients.flatMap((client, k) => [0, 1, 2].map((i) => client.c({ i: k * 10 + i })));
    await tool.arrived(6);
    holder.set("new-token");
    const after = clients.flatMap((client, k) => [0, 1, 2].map((i) => client.c({ i: 100 + k * 10 + i })));
    await tool.arrived(12);
    tool.release();
    await withTimeout(Promise.all([...before, ...after]), 5_000, "all calls");
    for (const r of tool.received) {
      const { i } = JSON.parse(r.body) as { i: number };
      assert.is(tokenOf(r.headers), i < 100 ? "Bearer old-token" : "Bearer new-token", `call ${i}`);
    }
    assert.throws(() => holder.set("Bearer x-token"), /without "Bearer "/);
    assert.is(JSON.stringify(holder), '{"token":"[REDACTED]"}');
  } finally {
    await tool.close();
  }
});

test.run();
