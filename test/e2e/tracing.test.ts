/**
 * Three real processes, client → agent → tool, each with telemetry exporting OTLP/HTTP JSON to a
 * receiver in this process: one trace id across all spans, correct parent links, baggage (and the
 * forwarded token and tenant) arriving at the tool, and no id-valued metric labels anywhere.
 */
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { isIdLabel, looksLikeId } from "../../runtime/telemetry/index.js";
import { TS_NODE_ARGS } from "../support/ts-node-args.js";
import { startOtlpReceiver } from "../telemetry/otlp-receiver.js";
import type { AgentCaps } from "./fixtures/tracing-spec.js";
import { killAll, startFixture } from "./helpers.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const SERVER = 2;
const CLIENT = 3;

const test = suite<{ receiver?: Awaited<ReturnType<typeof startOtlpReceiver>> }>("tracing across processes", {});
test.before(async (context) => void (context.receiver = await startOtlpReceiver()));
test.after(async ({ receiver }) => {
  killAll();
  await receiver?.close();
});

test("client → agent → tool: one trace, parent links, baggage at the tool, no id-valued metric labels", async ({ receiver }) => {
  const env = {
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver!.url,
    OTEL_BSP_SCHEDULE_DELAY: "50",
    OTEL_METRIC_EXPORT_INTERVAL: "250",
    APP_ENV: "development",
    OTEL_SERVICE_NAME: "",
    OTEL_RESOURCE_ATTRIBUTES: "",
    OTEL_TRACES_SAMPLER: "",
    MANIFOLD_TELEMETRY_SERVICE_INSTANCE_ID: "",
  };
  const tool = await startFixture("tracing-tool.ts", env);
  const agent = await startFixture("tracing-agent.ts", { ...env, TOOL_URL: tool.url });
  const client = fileURLToPath(new URL("fixtures/tracing-client.ts", import.meta.url));
  const { stdout } = await promisify(execFile)(process.execPath, [...TS_NODE_ARGS, client], {
    cwd: root,
    env: { ...process.env, ...env, AGENT_URL: agent.url },
    timeout: 60_000,
  });
  const { result } = JSON.parse(stdout.trim().split("\n").at(-1)!) as { result: AgentCaps["plan"]["output"] };

  // What arrived at the tool, two hops from the client.
  const arrived = result.tool;
  const traceId = arrived.traceId!;
  assert.match(traceId, /^[0-9a-f]{32}$/);
  assert.is(result.agentTraceId, traceId);
  assert.match(arrived.traceparent!, new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
  assert.equal(Object.fromEntries(arrived.baggage!.split(",").map((kv) => kv.split("="))), {
    request_id: "req-e2e-1",
    original_request_id: "req-e2e-1",
    conversation_id: "conv-e2e",
  });
  assert.equal([arrived.requestId, arrived.originalRequestId, arrived.conversationId], ["req-e2e-1", "req-e2e-1", "conv-e2e"]);
  assert.is(arrived.tenant, "acme", "the tenant header was forwarded by the agent");
  assert.ok(arrived.authorized, "the token was forwarded by the agent (the tool requires one)");

  const services = ["tracing-client", "tracing-agent", "tracing-tool"];
  await receiver!.until(() => receiver!.spans.length >= 4, "4 spans");
  const spans = receiver!.spans;
  assert.equal([...new Set(spans.map((s) => s.traceId))], [traceId], "one trace id across all spans");
  const find = (service: string, kind: number) => {
    const found = spans.filter((s) => s.service === service && s.kind === kind);
    assert.is(found.length, 1, `${service} kind ${kind}`);
    return found[0]!;
  };
  const clientSpan = find("tracing-client", CLIENT);
  const agentServer = find("tracing-agent", SERVER);
  const agentClient = find("tracing-agent", CLIENT);
  const toolServer = find("tracing-tool", SERVER);
  assert.is(spans.length, 4);
  assert.is(clientSpan.parentSpanId, undefined, "the client's span is the root");
  assert.is(agentServer.parentSpanId, clientSpan.spanId);
  assert.is(agentClient.parentSpanId, agentServer.spanId);
  assert.is(toolServer.parentSpanId, agentClient.spanId);
  assert.is(arrived.traceparent!.split("-")[2], agentClient.spanId);
  assert.equal(
    [clientSpan.name, agentServer.name, agentClient.name, toolServer.name],
    ["HTTP POST /api/capabilities/plan", "HTTP POST /api/capabilities/plan", "HTTP POST /api/capabilities/inspect", "HTTP POST /api/capabilities/inspect"],
  );
  const instances = new Set(spans.map((s) => s.resource["service.instance.id"]));
  assert.is(instances.size, 3, "each process has its own service.instance.id");
  for (const id of instances) assert.match(String(id), /^[0-9a-f-]{36}$/);

  await receiver!.until(() => services.every((s) => receiver!.points.some((p) => p.service === s)), "metrics from all three");
  const ids = new Set(["req-e2e-1", "conv-e2e", traceId, ...spans.map((s) => s.spanId), ...instances].map(String));
  for (const point of receiver!.points) {
    for (const [name, value] of Object.entries(point.attributes)) {
      assert.not.ok(isIdLabel(name), `${point.service} ${point.metric}: label ${name}`);
      assert.not.ok(looksLikeId(value as string) || ids.has(String(value)), `${point.service} ${point.metric}: ${name}=${String(value)}`);
    }
  }
  assert.equal(receiver!.rejected, []);
});

test.run();
