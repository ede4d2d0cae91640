/**
 * Telemetry: OpenTelemetry set up once per process (`initTelemetry`), W3C trace context and baggage
 * on every inbound and outbound call, guarded metrics, and JSON logs carrying trace and request ids.
 * Importing this module loads nothing from OpenTelemetry; `initTelemetry` does, on demand.
 */
export { initTelemetry, shutdownTelemetry, type TelemetryOptions } from "./setup.js";
export { getTelemetry, type Metrics, type SpanAttributes, type SpanInfo, type SpanTrace, type Telemetry, type TraceContext } from "./telemetry.js";
export { createLogger, type LogFields, type Logger, type LoggerOptions, type LogLevel } from "./logger.js";
export { createLabelFilter, isIdLabel, looksLikeId, type LabelFilterOptions, type Labels } from "./labels.js";
export {
  ATTR,
  BAGGAGE,
  CONVERSATION_HEADER,
  LABELS,
  METRIC,
  ORCHESTRATION_EVENT,
  ORCHESTRATION_SPAN,
  SKILLS_SPAN,
  TASK_SPAN,
  UNTRACED_PATHS,
  hookSpanName,
} from "./names.js";
export { PROFILES, resolveAppEnv, type AppEnv, type TelemetryProfile } from "./profiles.js";
export { REDACTED, redactSecrets, registerSecret } from "../context/index.js";
export { noteServiceName } from "./logger.js";
export type { ClientTrace, ServerTrace } from "./telemetry.js";
