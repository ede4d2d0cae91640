/**
 * The OpenTelemetry-backed Telemetry. Only setup.ts imports this module, dynamically, so a process
 * that never calls `initTelemetry()` never loads `@opentelemetry/api`.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import {
  context,
  isSpanContextValid,
  metrics as metricsApi,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Link,
  type Span,
  type Tracer,
} from "@opentelemetry/api";
import { validConversationId, validRequestId } from "../context/index.js";
import { createLabelFilter, type Labels } from "./labels.js";
import type { Logger } from "./logger.js";
import { ATTR, BAGGAGE, CONVERSATION_HEADER, METRIC, spanName, TRACER_NAME, UNTRACED_PATHS } from "./names.js";
import type { TelemetryProfile } from "./profiles.js";
import type { ClientSpanInfo, ClientTrace, Metrics, ServerSpanInfo, ServerTrace, SpanInfo, SpanTrace, Telemetry, TraceContext } from "./telemetry.js";

export interface OtelTelemetryOptions {
  readonly profile: TelemetryProfile;
  readonly log: Logger;
  /** Flushes and stops the SDK. */
  readonly stop: () => Promise<void>;
}

type Kind = "counter" | "upDownCounter" | "histogram" | "gauge";
type Record_ = (value: number, attributes: Attributes) => void;

/** Attributes without undefined values (the API accepts them, exporters print them as empty). */
function attributes(values: Readonly<Record<string, string | number | boolean | undefined>>): Attributes {
  const out: Attributes = {};
  for (const [key, value] of Object.entries(values)) if (value !== undefined) out[key] = value;
  return out;
}

/** The trace context of the span active in `active`, as stored text. */
function traceContextOf(active: Context): TraceContext | undefined {
  const carrier: Record<string, string> = {};
  // Only the trace context propagator's fields: baggage is not stored with the work.
  propagation.inject(active, carrier);
  const traceparent = carrier["traceparent"];
  if (traceparent === undefined) return undefined;
  const tracestate = carrier["tracestate"];
  return tracestate === undefined || tracestate === "" ? { traceparent } : { traceparent, tracestate };
}

/** Stored trace contexts → span links; anything that does not parse is skipped, never thrown. */
function linksOf(contexts: readonly TraceContext[] | undefined): Link[] {
  const links: Link[] = [];
  for (const stored of contexts ?? []) {
    const carrier: Record<string, string> = { traceparent: stored.traceparent, ...(stored.tracestate === undefined ? {} : { tracestate: stored.tracestate }) };
    const spanContext = trace.getSpanContext(propagation.extract(ROOT_CONTEXT, carrier));
    if (spanContext !== undefined && isSpanContextValid(spanContext)) links.push({ context: spanContext });
  }
  return links;
}

function createMetrics(profile: TelemetryProfile, log: Logger): Metrics {
  const meter = metricsApi.getMeter(TRACER_NAME);
  const filter = createLabelFilter({
    cardinalityLimit: profile.metricCardinalityLimit,
    onDrop: (metric, label, why) => log.warn(`metric ${metric}: label ${label} dropped, ${why}`),
  });
  const instruments = new Map<string, Record_>();
  const instrument = (kind: Kind, name: string): Record_ => {
    const key = `${kind} ${name}`;
    let record = instruments.get(key);
    if (record === undefined) {
      if (kind === "counter") {
        const c = meter.createCounter(name);
        record = (v, a) => c.add(v, a);
      } else if (kind === "upDownCounter") {
        const c = meter.createUpDownCounter(name);
        record = (v, a) => c.add(v, a);
      } else if (kind === "histogram") {
        const h = meter.createHistogram(name, { unit: name.endsWith(".duration") || name.endsWith("_ms") ? "ms" : "1" });
        record = (v, a) => h.record(v, a);
      } else {
        const g = meter.createGauge(name);
        record = (v, a) => g.record(v, a);
      }
      instruments.set(key, record);
    }
    return record;
  };
  const use =
    (kind: Kind) =>
    (name: string, value: number, labels?: Labels): void =>
      instrument(kind, name)(value, filter(name, labels));
  return { counter: use("counter"), upDownCounter: use("upDownCounter"), histogram: use("histogram"), gauge: use("gauge") };
}

/** What the span starters share: the tracer, the profile's error-message rule and the metrics. */
interface Instruments {
  readonly tracer: Tracer;
  readonly profile: TelemetryProfile;
  readonly metrics: Metrics;
}

/** Marks `span` failed with `errorCode` (the message only when the profile records error messages). */
function failSpan(span: Span, profile: TelemetryProfile, errorCode: string): void {
  span.setAttribute(ATTR.ERROR_CODE, errorCode);
  span.setStatus({ code: SpanStatusCode.ERROR, ...(profile.recordErrorMessages ? { message: errorCode } : {}) });
}

/**
 * The server span of one request, parented on the incoming trace context, carrying the baggage's ids;
 * ended, with the request counter and duration recorded, when the response closes.
 */
function startServerTrace(
  { tracer, profile, metrics }: Instruments,
  req: IncomingMessage,
  res: ServerResponse,
  { component, path, route }: ServerSpanInfo,
): ServerTrace {
  const method = req.method ?? "GET";
  const parent = propagation.extract(ROOT_CONTEXT, req.headers);
  const baggage = propagation.getBaggage(parent);
  const entry = (key: string): string | undefined => baggage?.getEntry(key)?.value;
  const requestId = validRequestId(entry(BAGGAGE.REQUEST_ID));
  const conversationId = validConversationId(entry(BAGGAGE.CONVERSATION_ID)) ?? validConversationId(req.headers[CONVERSATION_HEADER]);
  const span = tracer.startSpan(
    spanName(method, route),
    {
      kind: SpanKind.SERVER,
      attributes: attributes({
        [ATTR.HTTP_METHOD]: method,
        [ATTR.URL_PATH]: path,
        [ATTR.HTTP_ROUTE]: route,
        [ATTR.COMPONENT]: component,
        [ATTR.REQUEST_ID]: validRequestId(req.headers["x-manifold-request-id"]) ?? requestId,
        [ATTR.CONVERSATION_ID]: conversationId,
      }),
    },
    parent,
  );
  const active = trace.setSpan(parent, span);
  const started = performance.now();
  let errorCode: string | undefined;
  res.once("close", () => {
    const status = res.statusCode;
    span.setAttribute(ATTR.HTTP_STATUS, status);
    if (errorCode !== undefined) span.setAttribute(ATTR.ERROR_CODE, errorCode);
    if (status >= 500 || !res.writableFinished)
      span.setStatus({ code: SpanStatusCode.ERROR, ...(profile.recordErrorMessages && errorCode !== undefined ? { message: errorCode } : {}) });
    span.end();
    const labels = {
      [ATTR.COMPONENT]: component,
      [ATTR.HTTP_ROUTE]: route,
      [ATTR.HTTP_METHOD]: method,
      [ATTR.HTTP_STATUS]: status,
      [ATTR.ERROR_CODE]: errorCode,
    };
    metrics.counter(METRIC.SERVER_REQUESTS, 1, labels);
    metrics.histogram(METRIC.SERVER_DURATION, performance.now() - started, labels);
  });
  return {
    requestId,
    originalRequestId: validRequestId(entry(BAGGAGE.ORIGINAL_REQUEST_ID)),
    conversationId,
    run: (fn) => context.with(active, fn),
    fail: (code) => {
      errorCode = code;
    },
    traceContext: () => traceContextOf(active),
  };
}

/** The client span of one outbound call, child of the active span; `inject` writes its context and baggage into the headers. */
function startClientTrace({ tracer, profile }: Instruments, { method, url, target, capability }: ClientSpanInfo): ClientTrace {
  const parent = context.active();
  const span = tracer.startSpan(
    spanName(method, url.pathname),
    {
      kind: SpanKind.CLIENT,
      attributes: attributes({
        [ATTR.HTTP_METHOD]: method,
        [ATTR.URL_FULL]: `${url.protocol}//${url.host}${url.pathname}`,
        [ATTR.TARGET]: target,
        [ATTR.CAPABILITY]: capability,
      }),
    },
    parent,
  );
  const active = trace.setSpan(parent, span);
  return {
    inject(headers, values) {
      // Entries that came in with the request travel on; ours are set (or replaced) on top.
      let baggage = propagation.getBaggage(active) ?? propagation.createBaggage();
      if (values.requestId !== undefined) baggage = baggage.setEntry(BAGGAGE.REQUEST_ID, { value: values.requestId });
      if (values.originalRequestId !== undefined) baggage = baggage.setEntry(BAGGAGE.ORIGINAL_REQUEST_ID, { value: values.originalRequestId });
      if (values.conversationId !== undefined) baggage = baggage.setEntry(BAGGAGE.CONVERSATION_ID, { value: values.conversationId });
      propagation.inject(propagation.setBaggage(active, baggage), headers);
    },
    end(status, errorCode) {
      if (status !== undefined) span.setAttribute(ATTR.HTTP_STATUS, status);
      if (errorCode !== undefined) failSpan(span, profile, errorCode);
      span.end();
    },
  };
}

/** An internal span (a task, an orchestration step), linked to the stored trace contexts it continues. */
function startInternalSpan({ tracer, profile }: Instruments, name: string, { attributes: values = {}, links, parent: where = "root" }: SpanInfo): SpanTrace {
  // A root by default: the task runs long after the request that submitted it has ended, so it is
  // linked to that trace rather than made part of it. An orchestration step is part of its run.
  const parent = where === "active" ? context.active() : ROOT_CONTEXT;
  const span = tracer.startSpan(name, { kind: SpanKind.INTERNAL, root: where !== "active", attributes: attributes(values), links: linksOf(links) }, parent);
  const active = trace.setSpan(parent, span);
  return {
    run: (fn) => context.with(active, fn),
    event: (eventName, eventAttributes = {}) => span.addEvent(eventName, attributes(eventAttributes)),
    setAttributes: (values) => span.setAttributes(attributes(values)),
    end(errorCode) {
      if (errorCode !== undefined) failSpan(span, profile, errorCode);
      span.end();
    },
  };
}

export function createOtelTelemetry({ profile, log, stop }: OtelTelemetryOptions): Telemetry {
  const metrics = createMetrics(profile, log);
  const instruments: Instruments = { tracer: trace.getTracer(TRACER_NAME), profile, metrics };
  const traces = new WeakMap<IncomingMessage, ServerTrace>();

  return {
    enabled: true,
    metrics,

    startServer(req, res, info) {
      if (UNTRACED_PATHS.has(info.path)) return undefined;
      const serverTrace = startServerTrace(instruments, req, res, info);
      traces.set(req, serverTrace);
      return serverTrace;
    },
    serverTraceOf: (req) => traces.get(req),
    startClient: (info) => startClientTrace(instruments, info),
    startSpan: (name, info) => startInternalSpan(instruments, name, info),

    event(name, values = {}) {
      trace.getSpan(context.active())?.addEvent(name, attributes(values));
    },

    activeEvents() {
      const span = trace.getSpan(context.active());
      return span === undefined ? undefined : (name, values = {}) => span.addEvent(name, attributes(values));
    },

    currentIds() {
      const spanContext = trace.getSpan(context.active())?.spanContext();
      return spanContext !== undefined && isSpanContextValid(spanContext) ? { traceId: spanContext.traceId, spanId: spanContext.spanId } : undefined;
    },

    shutdown: stop,
  };
}
