/**
 * A local OTLP/HTTP receiver for tests: accepts the JSON encoding the runtime's exporters send
 * (`/v1/traces`, `/v1/metrics`) and keeps every span and metric data point, flattened.
 */
import { startServer } from "../runtime/support.js";
import { eventually, WAIT_LIMIT_MS } from "../support/wait.js";

type AnyValue = { stringValue?: string; intValue?: number | string; doubleValue?: number; boolValue?: boolean };
type KeyValue = { key: string; value: AnyValue };

export interface ReceivedSpan {
  readonly service: string;
  readonly resource: Record<string, unknown>;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string | undefined;
  readonly name: string;
  /** OTLP SpanKind: 2 server, 3 client. */
  readonly kind: number;
  readonly attributes: Record<string, unknown>;
  /** Spans this one links to (not its parent). */
  readonly links: readonly { readonly traceId: string; readonly spanId: string }[];
  readonly events: readonly { readonly name: string; readonly attributes: Record<string, unknown> }[];
  /** OTLP status code: 0 unset, 1 ok, 2 error. */
  readonly status: number;
}

export interface ReceivedPoint {
  readonly service: string;
  readonly metric: string;
  readonly attributes: Record<string, unknown>;
}

function values(list: readonly KeyValue[] | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { key, value } of list ?? [])
    out[key] = value.stringValue ?? (value.intValue === undefined ? undefined : Number(value.intValue)) ?? value.doubleValue ?? value.boolValue;
  return out;
}

interface Resourceful {
  resource?: { attributes?: KeyValue[] };
}
type TracesBody = {
  resourceSpans?: (Resourceful & {
    scopeSpans?: {
      spans?: {
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind: number;
        attributes?: KeyValue[];
        links?: { traceId: string; spanId: string }[];
        events?: { name: string; attributes?: KeyValue[] }[];
        status?: { code?: number };
      }[];
    }[];
  })[];
};
type Points = { dataPoints?: { attributes?: KeyValue[] }[] };
type MetricsBody = { resourceMetrics?: (Resourceful & { scopeMetrics?: { metrics?: ({ name: string } & Record<string, Points | string>)[] }[] })[] };

export async function startOtlpReceiver() {
  const spans: ReceivedSpan[] = [];
  const points: ReceivedPoint[] = [];
  const rejected: string[] = [];
  const server = await startServer((req, res) => {
    let body = "";
    req
      .setEncoding("utf8")
      .on("data", (part: string) => (body += part))
      .on("end", () => {
        if (!String(req.headers["content-type"]).startsWith("application/json")) {
          rejected.push(`${req.url} ${req.headers["content-type"]}`);
          return void res.writeHead(415).end();
        }
        if (req.url === "/v1/traces") {
          for (const rs of (JSON.parse(body) as TracesBody).resourceSpans ?? []) {
            const resource = values(rs.resource?.attributes);
            for (const ss of rs.scopeSpans ?? [])
              for (const s of ss.spans ?? []) {
                spans.push({
                  service: String(resource["service.name"]),
                  resource,
                  traceId: s.traceId,
                  spanId: s.spanId,
                  parentSpanId: s.parentSpanId || undefined,
                  name: s.name,
                  kind: s.kind,
                  attributes: values(s.attributes),
                  links: (s.links ?? []).map((l) => ({ traceId: l.traceId, spanId: l.spanId })),
                  events: (s.events ?? []).map((e) => ({ name: e.name, attributes: values(e.attributes) })),
                  status: s.status?.code ?? 0,
                });
              }
          }
        } else if (req.url === "/v1/metrics") {
          for (const rm of (JSON.parse(body) as MetricsBody).resourceMetrics ?? []) {
            const service = String(values(rm.resource?.attributes)["service.name"]);
            for (const sm of rm.scopeMetrics ?? [])
              for (const m of sm.metrics ?? []) {
                for (const [key, data] of Object.entries(m)) {
                  if (key === "name" || typeof data !== "object") continue;
                  for (const p of data.dataPoints ?? []) points.push({ service, metric: m.name, attributes: values(p.attributes) });
                }
              }
          }
        }
        res.writeHead(200, { "content-type": "application/json" }).end("{}");
      });
  });

  /** Polls until `test` holds over what has arrived; `ms` is a hang guard, not a speed aim. */
  const until = async (test: () => boolean, what: string, ms = WAIT_LIMIT_MS): Promise<void> => {
    await eventually(what, test, { limitMs: ms, intervalMs: 50 });
  };

  return { url: server.url, spans, points, rejected, until, close: server.close };
}

/**
 * Points this process's OpenTelemetry export at a receiver, flushing fast (spans every 50 ms,
 * metrics every 200 ms) and clearing what the environment might add (service name, resource
 * attributes, sampler). Call before `initTelemetry`.
 */
export function exportToReceiver(url: string, extra: Readonly<Record<string, string>> = {}): void {
  Object.assign(process.env, {
    OTEL_EXPORTER_OTLP_ENDPOINT: url,
    OTEL_BSP_SCHEDULE_DELAY: "50",
    OTEL_METRIC_EXPORT_INTERVAL: "200",
    OTEL_SERVICE_NAME: "",
    OTEL_RESOURCE_ATTRIBUTES: "",
    OTEL_TRACES_SAMPLER: "",
    ...extra,
  });
}

type Receiver = Awaited<ReturnType<typeof startOtlpReceiver>>;

/**
 * The span events of the natural request with this id, from its server span, once it arrived (and,
 * with `last`, once an event of that name is on it).
 */
export async function naturalRequestEvents(receiver: Receiver, requestId: string, last?: string): Promise<ReceivedSpan["events"]> {
  const find = () => receiver.spans.find((s) => s.name === "HTTP POST /orchestrate/natural" && s.events.some((e) => e.attributes["request_id"] === requestId));
  await receiver.until(() => {
    const span = find();
    return span !== undefined && (last === undefined || span.events.some((e) => e.name === last));
  }, `the request span of ${requestId}`);
  return find()!.events;
}
