/**
 * Telemetry in one process against a local OTLP receiver: server and client spans, W3C trace
 * context and baggage in and out, probe routes untraced, trace ids in logs, guarded metrics.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { createClient, serveComponent } from "../../runtime/component/index.js";
import type { HandlerContext, RunningComponent } from "../../runtime/component/index.js";
import {
  createLogger,
  getTelemetry,
  initTelemetry,
  isIdLabel,
  looksLikeId,
  PROFILES,
  resolveAppEnv,
  shutdownTelemetry,
} from "../../runtime/telemetry/index.js";
import { rawRequest } from "../runtime/support.js";
import { startRecorder } from "../outbound/support.js";
import { agent, agentSpec, tool, toolSpec } from "../support/specs.js";
import { startOtlpReceiver } from "./otlp-receiver.js";

const spec = agentSpec(agent("traced", { description: "t", capabilities: { relay: {} } }));
const downstream = toolSpec(tool("downstream", { description: "d", capabilities: { record: {} } }));
type Any = { input: unknown; output: unknown };

const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT = "00f067aa0ba902b7";

interface Context {
  receiver?: Awaited<ReturnType<typeof startOtlpReceiver>>;
  tool?: Awaited<ReturnType<typeof startRecorder>>;
  running?: RunningComponent;
  seen: Record<string, unknown>[];
  lines: string[];
}
const test = suite<Context>("telemetry setup", { seen: [], lines: [] });

test.before(async (context) => {
  context.receiver = await startOtlpReceiver();
  context.tool = await startRecorder();
  Object.assign(process.env, {
    OTEL_EXPORTER_OTLP_ENDPOINT: context.receiver.url,
    OTEL_BSP_SCHEDULE_DELAY: "50",
    OTEL_METRIC_EXPORT_INTERVAL: "200",
    MANIFOLD_TELEMETRY_SERVICE_INSTANCE_ID: "instance-7",
    APP_ENV: "development",
    OTEL_SERVICE_NAME: "",
    OTEL_RESOURCE_ATTRIBUTES: "",
    OTEL_TRACES_SAMPLER: "",
  });
  const first = initTelemetry({ serviceName: "traced-service" });
  assert.is(await initTelemetry(), await first, "once per process");
  const log = createLogger({ component: "handler", write: (line) => void context.lines.push(line), env: {} });
  const next = createClient<{ record: Any }>(downstream, { baseUrl: context.tool.url });
  const relay = async (_input: unknown, ctx: HandlerContext) => {
    context.seen.push({ requestId: ctx.requestId, originalRequestId: ctx.originalRequestId, conversationId: ctx.conversationId });
    log.info("relaying");
    return next.record({});
  };
  context.running = await serveComponent<{ relay: Any }>(spec, { port: 0, handleSignals: false, registry: false, log: () => undefined, handlers: { relay } });
});
test.after(async ({ receiver, tool, running }) => {
  await running?.close();
  await shutdownTelemetry();
  assert.is(getTelemetry().enabled, false, "shutdown puts the no-op back");
  await tool?.close();
  await receiver?.close();
});

test("inbound traceparent and baggage parent the server span and reach the handler; outbound carries both on", async ({
  receiver,
  tool,
  running,
  seen,
  lines,
}) => {
  const response = await rawRequest(`${running!.url}/api/capabilities/relay`, {
    method: "POST",
    body: "{}",
    headers: {
      "content-type": "application/json",
      traceparent: `00-${TRACE}-${PARENT}-01`,
      tracestate: "vendor=abc",
      baggage: "request_id=req-b,original_request_id=orig-a,conversation_id=conv-x,tenant=acme",
    },
  });
  assert.is(response.status, 200);
  assert.is(response.headers["x-manifold-request-id"], "req-b", "without the header, the baggage's request id is the call's");
  assert.equal(seen, [{ requestId: "req-b", originalRequestId: "orig-a", conversationId: "conv-x" }]);

  const sent = tool!.received.at(-1)!.headers;
  assert.match(String(sent["traceparent"]), new RegExp(`^00-${TRACE}-[0-9a-f]{16}-01$`));
  assert.is(sent["tracestate"], "vendor=abc");
  const baggage = Object.fromEntries(
    String(sent["baggage"])
      .split(",")
      .map((kv) => kv.split("=")),
  );
  assert.equal(baggage, { tenant: "acme", request_id: "req-b", original_request_id: "orig-a", conversation_id: "conv-x" });
  assert.is(sent["x-manifold-request-id"], "req-b");
  assert.is(sent["x-manifold-conversation-id"], undefined, "no fallback header while OpenTelemetry is on");

  await receiver!.until(() => receiver!.spans.filter((s) => s.traceId === TRACE).length >= 2, "2 spans");
  const server = receiver!.spans.find((s) => s.traceId === TRACE && s.kind === 2)!;
  const client = receiver!.spans.find((s) => s.traceId === TRACE && s.kind === 3)!;
  assert.is(server.name, "HTTP POST /api/capabilities/relay");
  assert.is(server.parentSpanId, PARENT);
  assert.is(server.attributes["http.response.status_code"], 200);
  assert.is(server.attributes["manifold.request_id"], "req-b");
  assert.is(client.name, "HTTP POST /api/capabilities/record");
  assert.is(client.parentSpanId, server.spanId);
  assert.is(String(sent["traceparent"]).split("-")[2], client.spanId, "the tool's parent is the client span");
  assert.equal(
    [server.resource["service.name"], server.resource["service.instance.id"], server.resource["deployment.environment.name"]],
    ["traced-service", "instance-7", "development"],
  );

  const logged = JSON.parse(lines.at(-1)!) as Record<string, unknown>;
  assert.equal([logged["trace.trace_id"], logged["trace.span_id"], logged["request_id"]], [TRACE, server.spanId, "req-b"]);
});

test("probe routes get no span; other routes are named by route, unknown paths by method only", async ({ receiver, running }) => {
  for (const path of ["/health", "/metrics", "/ready", "/live", "/api/capabilities", "/no/such/path?x=1"]) await rawRequest(`${running!.url}${path}`);
  await receiver!.until(() => receiver!.spans.some((s) => s.name === "HTTP GET"), "the unknown path's span");
  const names = receiver!.spans.filter((s) => s.kind === 2).map((s) => s.name);
  assert.ok(names.includes("HTTP GET /api/capabilities"));
  for (const probe of ["/health", "/metrics", "/ready", "/live"])
    assert.not.ok(
      names.some((n) => n.endsWith(probe)),
      probe,
    );
  assert.not.ok(names.some((n) => n.includes("/no/such/path")));
});

test("metrics are exported with allowed labels only, none of them an id", async ({ receiver }) => {
  await receiver!.until(() => ["manifold.server.requests", "manifold.client.duration"].every((m) => receiver!.points.some((p) => p.metric === m)), "metrics");
  for (const point of receiver!.points) {
    for (const [name, value] of Object.entries(point.attributes)) {
      assert.not.ok(isIdLabel(name), `${point.metric} label ${name}`);
      assert.not.ok(looksLikeId(value as string), `${point.metric} ${name}=${String(value)}`);
      assert.not.ok(["req-b", "orig-a", "conv-x", TRACE].includes(String(value)), `${point.metric} ${name}=${String(value)}`);
    }
  }
  assert.equal(receiver!.rejected, [], "everything arrived as OTLP JSON");
});

test("APP_ENV selects a profile; anything else fails by name", () => {
  assert.is(resolveAppEnv(undefined, {}), "development");
  assert.is(resolveAppEnv(undefined, { APP_ENV: "production" }), "production");
  assert.is(resolveAppEnv("staging", { APP_ENV: "production" }), "staging");
  assert.throws(() => resolveAppEnv(undefined, { APP_ENV: "prod" }), /APP_ENV/);
  assert.not.ok("sampleRatio" in PROFILES.production, "sampling is never a profile's");
  assert.ok(PROFILES.production.metricCardinalityLimit < PROFILES.development.metricCardinalityLimit);
  assert.is(PROFILES.production.recordErrorMessages, false);
});

test.run();
