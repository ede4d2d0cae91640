import type { IncomingMessage, ServerResponse } from "node:http";
import type { Labels } from "./labels.js";

/**
 * The small interface the runtime talks to. Until `initTelemetry()` runs it is the no-op below, and
 * nothing from OpenTelemetry is loaded: the runtime checks `enabled` (one property read) and skips
 * span, baggage and metric work entirely. No generated code ever sees OpenTelemetry types.
 */
export interface Telemetry {
  readonly enabled: boolean;
  readonly metrics: Metrics;
  /**
   * Starts the server span of an inbound request (parented by its `traceparent`, with its baggage),
   * which ends itself when the response closes; undefined for probe routes or when disabled.
   */
  startServer(req: IncomingMessage, res: ServerResponse, info: ServerSpanInfo): ServerTrace | undefined;
  /** The trace startServer made for this request, if any. */
  serverTraceOf(req: IncomingMessage): ServerTrace | undefined;
  /** A client span for one outbound call, child of whatever is active. */
  startClient(info: ClientSpanInfo): ClientTrace | undefined;
  /**
   * An internal span that no request carries (a task run), a root of its own trace, optionally
   * linked (not parented) to the traces that caused it; undefined when disabled.
   */
  startSpan(name: string, info: SpanInfo): SpanTrace | undefined;
  /**
   * An event on the active span (the request's server span, or an orchestration run): what natural
   * mode marks while it plans and synthesises. Attribute values are bounded facts, never prompts.
   */
  event(name: string, attributes?: SpanAttributes): void;
  /**
   * `event` bound to the span active now, for events that belong to it but happen later inside other
   * spans (the end of an orchestration run); undefined when no span is active.
   */
  activeEvents(): ((name: string, attributes?: SpanAttributes) => void) | undefined;
  /** Trace and span id of the active span, for log lines. */
  currentIds(): { readonly traceId: string; readonly spanId: string } | undefined;
  /** Flushes and stops export; the process is back to the no-op afterwards. */
  shutdown(): Promise<void>;
}

/** Metrics with the instrument type explicit at the call site; labels pass the allow-list guard. */
export interface Metrics {
  counter(name: string, value: number, labels?: Labels): void;
  upDownCounter(name: string, value: number, labels?: Labels): void;
  histogram(name: string, value: number, labels?: Labels): void;
  gauge(name: string, value: number, labels?: Labels): void;
}

export interface ServerSpanInfo {
  readonly component: string;
  /** The request's path without its query; the listener has already parsed it. */
  readonly path: string;
  /** The matched route, or undefined for a path no route serves. */
  readonly route: string | undefined;
}

export interface ClientSpanInfo {
  readonly method: string;
  readonly url: URL;
  /** The called component's name, when the caller knows it. */
  readonly target: string | undefined;
  readonly capability: string | undefined;
}

/** What the inbound side learnt from the request's baggage, and how to run code inside its span. */
export interface ServerTrace {
  readonly requestId: string | undefined;
  readonly originalRequestId: string | undefined;
  readonly conversationId: string | undefined;
  run<T>(fn: () => T): T;
  /** Marks the span failed with a ManifoldError code (the status comes from the response). */
  fail(code: string): void;
  /** The W3C trace context of this request's span, to be stored with work it causes later (a task). */
  traceContext(): TraceContext | undefined;
}

/** A span's W3C trace context as text, the way it travels in headers and is stored in records. */
export interface TraceContext {
  readonly traceparent: string;
  readonly tracestate?: string;
}

export type SpanAttributes = Readonly<Record<string, string | number | boolean | undefined>>;

export interface SpanInfo {
  readonly attributes?: SpanAttributes;
  /** Spans this one is linked to, not parented by: the work it does was caused there. Invalid ones are skipped. */
  readonly links?: readonly TraceContext[];
  /**
   * `root` starts a trace of its own (work done after its request ended, a task); `active` makes the
   * span a child of whatever span is active (an orchestration run and its steps). @defaultValue "root"
   */
  readonly parent?: "root" | "active";
}

/** An internal span: code run inside it parents its client spans; events mark steps. */
export interface SpanTrace {
  run<T>(fn: () => T): T;
  event(name: string, attributes?: SpanAttributes): void;
  /** Adds attributes known only once the work is done (a hook's outcome). */
  setAttributes(attributes: SpanAttributes): void;
  /** Ends the span, failed when an error code is given. */
  end(errorCode?: string): void;
}

/** The values outbound baggage carries. */
export interface BaggageValues {
  readonly requestId: string | undefined;
  readonly originalRequestId: string | undefined;
  readonly conversationId: string | undefined;
}

export interface ClientTrace {
  /** Writes `traceparent`, `tracestate` and `baggage` for this span into the outgoing headers. */
  inject(headers: Record<string, string>, baggage: BaggageValues): void;
  /** Ends the span: the response status if one arrived, and the error code if the call failed. */
  end(status: number | undefined, errorCode: string | undefined): void;
}

const noMetrics: Metrics = {
  counter: () => undefined,
  upDownCounter: () => undefined,
  histogram: () => undefined,
  gauge: () => undefined,
};

export const noopTelemetry: Telemetry = {
  enabled: false,
  metrics: noMetrics,
  startServer: () => undefined,
  serverTraceOf: () => undefined,
  startClient: () => undefined,
  startSpan: () => undefined,
  event: () => undefined,
  activeEvents: () => undefined,
  currentIds: () => undefined,
  shutdown: async () => undefined,
};

/**
 * One slot per process, on globalThis: two copies of the runtime (a dist and a source build, say)
 * must still share the SDK that `initTelemetry` set up once.
 */
const SLOT = Symbol.for("agent-manifold.telemetry");
type Slot = { current: Telemetry; starting: Promise<Telemetry> | undefined };
const slot: Slot = ((globalThis as Record<symbol, unknown>)[SLOT] ??= { current: noopTelemetry, starting: undefined }) as Slot;

export function getTelemetry(): Telemetry {
  return slot.current;
}

/** @internal for setup.ts */
export function telemetrySlot(): Slot {
  return slot;
}
