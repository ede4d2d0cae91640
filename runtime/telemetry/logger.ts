import { currentScope, redactSecrets } from "../context/index.js";
import { getTelemetry } from "./telemetry.js";

export type LogLevel = "debug" | "info" | "warn" | "error";
export type LogFields = Readonly<Record<string, unknown>>;

/**
 * Callable as `log(message)` (level info), so a Logger is a valid `log` option of a component; the
 * methods take structured fields.
 */
export interface Logger {
  (message: string): void;
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

export interface LoggerOptions {
  /** @defaultValue `OTEL_SERVICE_NAME`, else the first component this process serves, else "manifold" */
  readonly service?: string;
  /** The part of the program that logs (`component`, `outbound`, your module). @defaultValue "app" */
  readonly component?: string;
  /** Lines below this level are dropped. @defaultValue `MANIFOLD_LOG_LEVEL`, else "debug" with `DEV_MODE=true`, else "info" */
  readonly level?: LogLevel;
  /** Readable text instead of JSON. @defaultValue `DEV_MODE === "true"` */
  readonly pretty?: boolean;
  /** Receives each line without its newline. @defaultValue a write to stderr */
  readonly write?: (line: string) => void;
  readonly env?: NodeJS.ProcessEnv;
}

const RANK: Readonly<Record<LogLevel, number>> = { debug: 10, info: 20, warn: 30, error: 40 };
/** Keys every JSON line starts with; a field of the same name cannot replace them. */
const BASE = new Set(["timestamp", "level", "service", "component", "message", "trace.trace_id", "trace.span_id", "request_id"]);

const SLOT = Symbol.for("agent-manifold.service-name");
const names = ((globalThis as Record<symbol, unknown>)[SLOT] ??= { first: undefined }) as { first: string | undefined };

/** Called by a component when it starts: lines of loggers without a `service` then carry its name. */
export function noteServiceName(name: string): void {
  names.first ??= name;
}

/** The spec's DEV_MODE means verbose logging: debug lines too, unless MANIFOLD_LOG_LEVEL says otherwise. */
function levelOf(value: string | undefined, devMode: boolean): LogLevel {
  if (value === undefined || value === "") return devMode ? "debug" : "info";
  if (Object.hasOwn(RANK, value)) return value as LogLevel;
  throw new RangeError("MANIFOLD_LOG_LEVEL must be debug, info, warn or error");
}

/** Errors as their name, message and code; no stack in a field (the message is what a reader needs). */
function replacer(_key: string, value: unknown): unknown {
  if (value instanceof Error) return { name: value.name, message: value.message, ...("code" in value ? { code: (value as { code: unknown }).code } : {}) };
  if (typeof value === "bigint") return value.toString();
  return value;
}

function serialise(record: Record<string, unknown>): string {
  try {
    return JSON.stringify(record, replacer);
  } catch {
    return JSON.stringify({ ...record, fields: "(fields that cannot be serialised)" }, (k, v: unknown) =>
      BASE.has(k) || k === "" || k === "fields" ? v : undefined,
    );
  }
}

function pretty(record: Record<string, unknown>): string {
  const { timestamp, level, service, component, message, ...rest } = record;
  const extra = Object.entries(rest).map(([k, v]) => `${k}=${typeof v === "string" ? v : serialise({ v }).slice(5, -1)}`);
  return `${String(timestamp)} ${String(level).toUpperCase().padEnd(5)} ${String(service)}/${String(component)} ${String(message)}${extra.length > 0 ? `  ${extra.join(" ")}` : ""}`;
}

/**
 * One JSON object per line: `timestamp, level, service, component, message, trace.trace_id,
 * trace.span_id, request_id`, then the fields. Trace ids come from the active span when telemetry is
 * on, the request id from the request context. Every registered secret is redacted from the line.
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const { env = process.env, component = "app", write = (line: string) => void process.stderr.write(`${line}\n`) } = options;
  const devMode = env["DEV_MODE"] === "true";
  const { level = levelOf(env["MANIFOLD_LOG_LEVEL"], devMode), pretty: readable = devMode } = options;
  const threshold = RANK[level];

  const emit = (lineLevel: LogLevel, message: string, fields: LogFields | undefined): void => {
    if (RANK[lineLevel] < threshold) return;
    const ids = getTelemetry().currentIds();
    const requestId = currentScope()?.requestId;
    const record: Record<string, unknown> = {
      timestamp: new Date().toISOString(),
      level: lineLevel,
      service: options.service ?? (env["OTEL_SERVICE_NAME"] || names.first || "manifold"),
      component,
      message,
      ...(ids === undefined ? {} : { "trace.trace_id": ids.traceId, "trace.span_id": ids.spanId }),
      ...(requestId === undefined ? {} : { request_id: requestId }),
    };
    for (const [key, value] of Object.entries(fields ?? {})) if (!BASE.has(key)) record[key] = value;
    try {
      write(redactSecrets(readable ? pretty(record) : serialise(record)));
    } catch {
      // A failing sink must not take the request that logged down with it.
    }
  };

  const logger = ((message: string) => emit("info", message, undefined)) as Logger;
  logger.debug = (message, fields) => emit("debug", message, fields);
  logger.info = (message, fields) => emit("info", message, fields);
  logger.warn = (message, fields) => emit("warn", message, fields);
  logger.error = (message, fields) => emit("error", message, fields);
  return logger;
}
