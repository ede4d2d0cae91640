import { randomUUID } from "node:crypto";
import { createLogger, noteServiceName } from "./logger.js";
import { ATTR } from "./names.js";
import { PROFILES, resolveAppEnv, type AppEnv } from "./profiles.js";
import { noopTelemetry, telemetrySlot, type Telemetry } from "./telemetry.js";

export interface TelemetryOptions {
  /** `service.name`; `OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES` win over it. @defaultValue "manifold" */
  readonly serviceName?: string;
  readonly serviceVersion?: string;
  /** Profile of safety and cardinality defaults. @defaultValue `APP_ENV`, else "development" */
  readonly environment?: AppEnv;
  /** Where Manifold's variables are read; the OTLP exporters read process.env. @defaultValue process.env */
  readonly env?: NodeJS.ProcessEnv;
}

/**
 * Sets up `@opentelemetry/sdk-node` once per process from the standard `OTEL_*` variables and returns
 * the Telemetry the runtime then uses; later calls return the same one. Spans and trace context work
 * either way; OTLP/HTTP export (JSON) happens only when `OTEL_EXPORTER_OTLP_ENDPOINT` (or the
 * signal's own `…_TRACES_ENDPOINT` / `…_METRICS_ENDPOINT`) is set. `OTEL_SDK_DISABLED=true` keeps the no-op.
 */
export function initTelemetry(options: TelemetryOptions = {}): Promise<Telemetry> {
  const slot = telemetrySlot();
  slot.starting ??= start(options).catch((error: unknown) => {
    slot.starting = undefined;
    throw error;
  });
  return slot.starting;
}

/** Flushes pending spans and metrics, stops the SDK, and puts the no-op back. */
export async function shutdownTelemetry(): Promise<void> {
  const slot = telemetrySlot();
  const current = slot.current;
  slot.current = noopTelemetry;
  slot.starting = undefined;
  await current.shutdown();
}

function positive(value: string | undefined): number | undefined {
  const n = Number(value);
  return value !== undefined && value !== "" && Number.isFinite(n) && n > 0 ? n : undefined;
}

async function start({ serviceName = "manifold", serviceVersion, environment, env = process.env }: TelemetryOptions): Promise<Telemetry> {
  const slot = telemetrySlot();
  const appEnv = resolveAppEnv(environment, env);
  if (env["OTEL_SDK_DISABLED"] === "true") return noopTelemetry;
  const profile = PROFILES[appEnv];
  const log = createLogger({ service: env["OTEL_SERVICE_NAME"] || serviceName, component: "telemetry", env });
  const tracesEndpoint = env["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"] || env["OTEL_EXPORTER_OTLP_ENDPOINT"];
  const metricsEndpoint = env["OTEL_EXPORTER_OTLP_METRICS_ENDPOINT"] || env["OTEL_EXPORTER_OTLP_ENDPOINT"];

  const [{ NodeSDK, resources, metrics }, sdkTrace, api, { createOtelTelemetry }] = await Promise.all([
    import("@opentelemetry/sdk-node"),
    import("@opentelemetry/sdk-trace"),
    import("@opentelemetry/api"),
    import("./otel.js"),
  ]);
  // Exporter failures would otherwise vanish: OpenTelemetry's diagnostics are silent by default.
  if (!env["OTEL_LOG_LEVEL"]) {
    const warn = (message: string): void => log.warn(message);
    api.diag.setLogger({ error: warn, warn, info: () => undefined, debug: () => undefined, verbose: () => undefined }, api.DiagLogLevel.WARN);
  }

  const resource = resources.defaultResource().merge(
    resources.resourceFromAttributes({
      [ATTR.SERVICE_NAME]: serviceName,
      [ATTR.SERVICE_INSTANCE_ID]: env["MANIFOLD_TELEMETRY_SERVICE_INSTANCE_ID"] || randomUUID(),
      [ATTR.DEPLOYMENT_ENVIRONMENT]: appEnv,
      ...(serviceVersion === undefined ? {} : { [ATTR.SERVICE_VERSION]: serviceVersion }),
    }),
  );

  let metricReaders: InstanceType<typeof metrics.PeriodicExportingMetricReader>[] = [];
  if (metricsEndpoint) {
    const { OTLPMetricExporter } = await import("@opentelemetry/exporter-metrics-otlp-http");
    const interval = positive(env["OTEL_METRIC_EXPORT_INTERVAL"]) ?? profile.metricExportIntervalMs;
    const timeout = Math.min(positive(env["OTEL_METRIC_EXPORT_TIMEOUT"]) ?? 30_000, interval);
    metricReaders = [
      new metrics.PeriodicExportingMetricReader({ exporter: new OTLPMetricExporter(), exportIntervalMillis: interval, exportTimeoutMillis: timeout }),
    ];
  }
  const traceExport = tracesEndpoint
    ? { traceExporter: new (await import("@opentelemetry/exporter-trace-otlp-http")).OTLPTraceExporter() }
    : // Spans are still made (ids for logs and propagation) but go nowhere.
      { spanProcessors: [new sdkTrace.NoopSpanProcessor()] };

  const sdk = new NodeSDK({
    resource,
    // Environment (OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES) and host; not the process detector,
    // whose command line may carry secrets.
    resourceDetectors: [resources.envDetector, resources.hostDetector],
    ...traceExport,
    metricReaders,
    logRecordProcessors: [],
    instrumentations: [],
    // No sampler here: the SDK reads OTEL_TRACES_SAMPLER(_ARG) itself; APP_ENV never samples.
    ...(env["OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT"] ? {} : { spanLimits: { attributeValueLengthLimit: profile.attributeValueLengthLimit } }),
  });
  sdk.start();
  noteServiceName(env["OTEL_SERVICE_NAME"] || serviceName);
  const telemetry = createOtelTelemetry({ profile, log, stop: () => sdk.shutdown() });
  slot.current = telemetry;
  return telemetry;
}
