/**
 * Every name telemetry puts on the wire or into a backend, in one place: span attributes, metric
 * names, metric labels, baggage keys and span names. Call sites use these constants, never strings,
 * so a rename is one edit and a dashboard can be checked against this file.
 */

/** Span and resource attributes; OpenTelemetry semantic conventions where one exists. */
export const ATTR = {
  SERVICE_NAME: "service.name",
  SERVICE_VERSION: "service.version",
  SERVICE_INSTANCE_ID: "service.instance.id",
  DEPLOYMENT_ENVIRONMENT: "deployment.environment.name",
  HTTP_METHOD: "http.request.method",
  HTTP_ROUTE: "http.route",
  HTTP_STATUS: "http.response.status_code",
  URL_PATH: "url.path",
  URL_FULL: "url.full",
  COMPONENT: "manifold.component",
  CAPABILITY: "manifold.capability",
  TARGET: "manifold.target",
  OUTCOME: "manifold.outcome",
  ERROR_CODE: "manifold.error.code",
  /** Span attributes only: ids are fine on a span, never on a metric (see LABELS). */
  REQUEST_ID: "manifold.request_id",
  CONVERSATION_ID: "manifold.conversation_id",
  /** Replaces a metric's labels once it has seen more label sets than its profile allows. */
  OVERFLOW: "otel.metric.overflow",
} as const;

/** W3C baggage entries Manifold reads and writes. */
export const BAGGAGE = {
  REQUEST_ID: "request_id",
  ORIGINAL_REQUEST_ID: "original_request_id",
  CONVERSATION_ID: "conversation_id",
} as const;

/** Metric names; the instrument type is chosen at the call site (`metrics.counter(...)`). */
export const METRIC = {
  SERVER_REQUESTS: "manifold.server.requests",
  SERVER_DURATION: "manifold.server.duration",
  CLIENT_REQUESTS: "manifold.client.requests",
  CLIENT_DURATION: "manifold.client.duration",
} as const;

/**
 * The only attribute names a metric may carry. Each has a small, bounded set of values; nothing
 * that identifies a request, conversation, session, user, trace, checkpoint, plan or step is here,
 * and `isIdLabel` refuses such names even if someone adds them.
 */
export const LABELS: ReadonlySet<string> = new Set([
  ATTR.COMPONENT,
  ATTR.CAPABILITY,
  ATTR.TARGET,
  ATTR.OUTCOME,
  ATTR.ERROR_CODE,
  ATTR.HTTP_METHOD,
  ATTR.HTTP_ROUTE,
  ATTR.HTTP_STATUS,
]);

/** Fallback for the conversation id when OpenTelemetry (and so baggage) is not initialised. */
export const CONVERSATION_HEADER = "x-manifold-conversation-id";

/** Probe and scrape routes: no server span, no metrics (they would drown the real traffic). */
export const UNTRACED_PATHS: ReadonlySet<string> = new Set(["/health", "/metrics", "/ready", "/live"]);

/** `HTTP POST /api/capabilities/x`; without a route (an unknown path) just the method, to bound names. */
export function spanName(method: string, route: string | undefined): string {
  return route === undefined ? `HTTP ${method}` : `HTTP ${method} ${route}`;
}

export const TRACER_NAME = "agent-manifold";
