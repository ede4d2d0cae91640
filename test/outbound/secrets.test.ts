/**
 * A run that uses a token and a propagated header (success, 401, handler failure quoting both,
 * network error, timeout), with every log line and every serialised configuration, context and error
 * captured: neither value may appear anywhere.
 */
import { inspect } from "node:util";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { createClient, serveComponent } from "../../runtime/component/index.js";
import type { HandlerContext } from "../../runtime/component/index.js";
import { createCaller, createClientCredentialsSource, createTokenHolder, withRequestContext } from "../../runtime/outbound/index.js";
import { createLogger } from "../../runtime/telemetry/index.js";
import { startServer } from "../runtime/support.js";
import { agent, agentSpec, tool, toolSpec } from "../support/specs.js";
import { startRecorder } from "./support.js";

const TOKEN = "tok-7f3a9c51-do-not-print";
const HEADER = "hdr-4b1e8d02-do-not-print";
const CLIENT_SECRET = "cs-91aa03-do-not-print";

const front = agentSpec(agent("front", { description: "f", capabilities: { relay: {}, explode: {}, denied: {}, slow: {} } }));
const back = toolSpec(tool("back", { description: "b", capabilities: { record: {} } }));
type Any = { input: unknown; output: unknown };
type FrontCaps = { relay: Any; explode: Any; denied: Any; slow: Any };

const test = suite("secrets never printed");

test("no log line, serialised config, context or error of the run contains the token or the header value", async () => {
  const texts: string[] = [];
  const capture = (line: string): void => void texts.push(line);
  const serialise = (value: unknown): void => void texts.push(JSON.stringify(value) ?? "", inspect(value, { depth: 10, showHidden: true }));
  const json = createLogger({ component: "test", write: capture, env: {} });
  const pretty = createLogger({ component: "test", write: capture, env: { DEV_MODE: "true" } });

  const tool = await startRecorder();
  const denying = await serveComponent<{ record: Any }>(back, {
    port: 0,
    handleSignals: false,
    registry: false,
    log: json,
    auth: { verify: () => false },
    handlers: { record: () => ({}) },
  });
  const toTool = createClient<{ record: Any }>(back, { baseUrl: tool.url, log: json });
  const toDenying = createClient<{ record: Any }>(back, { baseUrl: denying.url, log: pretty });
  const contexts: HandlerContext[] = [];
  const frontHandlers = {
    relay: (_input: unknown, ctx: HandlerContext) => {
      ctx.forward({ headers: ["x-api-key"] });
      contexts.push(ctx);
      json.info("relaying", { ctx, outbound: ctx.outbound, headers: ctx.headers });
      pretty.info("relaying", { ctx });
      return toTool.record({});
    },
    explode: (_input: unknown, ctx: HandlerContext) => {
      throw new Error(`failed with ${String(ctx.headers["authorization"])} and ${String(ctx.headers["x-api-key"])}`);
    },
    denied: (_input: unknown, ctx: HandlerContext) => {
      ctx.forward({ headers: ["x-api-key"] });
      return toDenying.record({});
    },
    slow: () => new Promise((resolve) => setTimeout(resolve, 700)),
  };
  const running = await serveComponent<FrontCaps>(front, {
    port: 0,
    handleSignals: false,
    registry: false,
    log: json,
    auth: { verify: (t) => t === TOKEN },
    handlers: frontHandlers,
  });
  const gone = await startServer(() => undefined);
  await gone.close();

  try {
    const options = { token: TOKEN, headers: { "x-api-key": HEADER }, log: json, timeoutMs: 300 };
    const client = createClient<FrontCaps>(front, { baseUrl: running.url, ...options });
    const unreachable = createClient<FrontCaps>(front, { baseUrl: gone.url, ...options });
    const caller = createCaller({ ...options, env: {} });
    const holder = createTokenHolder(TOKEN);
    const credentials = createClientCredentialsSource({ tokenUrl: `${gone.url}/token`, clientId: "id", clientSecret: CLIENT_SECRET, log: json });

    await client.relay({});
    const sent = tool.received.at(-1)!.headers;
    assert.is(sent["authorization"], `Bearer ${TOKEN}`, "the run really used the token");
    assert.is(sent["x-api-key"], HEADER, "and the header");

    const errors: unknown[] = [];
    const failing = [
      () => client.explode({}),
      () => client.denied({}),
      () => client.slow({}),
      () => unreachable.relay({}),
      () => credentials.token(),
      () => withRequestContext({ token: TOKEN }, () => caller.call({ url: `${gone.url}/x`, body: {}, name: "x" })),
    ];
    for (const call of failing)
      errors.push(
        await call().then(
          () => undefined,
          (e: unknown) => e,
        ),
      );
    assert.ok(
      errors.every((e) => e instanceof Error),
      "every call failed",
    );
    assert.ok(
      texts.some((t) => t.includes("component returned status 401")),
      "the 401 was logged",
    );
    assert.ok(
      texts.some((t) => t.includes("failed with Bearer [REDACTED] and [REDACTED]")),
      `the handler failure was logged, redacted: ${texts.filter((t) => t.includes("failed with")).join("\n")}`,
    );

    for (const value of [caller, holder, credentials, client, options.log, ...contexts, ...contexts.map((c) => c.outbound), ...errors]) serialise(value);
    for (const error of errors) texts.push(String(error), (error as Error).stack ?? "", String((error as Error).cause ?? ""));
    credentials.stop();
  } finally {
    await running.close();
    await denying.close();
    await tool.close();
  }

  assert.ok(texts.length > 20, `captured ${texts.length} texts`);
  for (const text of texts) {
    assert.not.ok(text.includes(TOKEN), `token found in: ${text.slice(0, 300)}`);
    assert.not.ok(text.includes(HEADER), `header value found in: ${text.slice(0, 300)}`);
    assert.not.ok(text.includes(CLIENT_SECRET), `client secret found in: ${text.slice(0, 300)}`);
  }
});

test.run();
