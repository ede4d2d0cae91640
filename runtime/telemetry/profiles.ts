/**
 * `APP_ENV` picks a profile of safety and cardinality defaults. Each value is a default only: the
 * standard variable wins where one exists (`OTEL_METRIC_EXPORT_INTERVAL`, …). Sampling is never a
 * profile's (the spec): it comes only from `OTEL_TRACES_SAMPLER` / `OTEL_TRACES_SAMPLER_ARG`, and
 * without them every trace is sampled (the SDK's parent-based always-on).
 */
export type AppEnv = "development" | "staging" | "production";

export interface TelemetryProfile {
  /** Distinct label sets per metric before it records only the overflow label. */
  readonly metricCardinalityLimit: number;
  /** Longest span attribute value; longer ones are cut by the SDK. */
  readonly attributeValueLengthLimit: number;
  /** Whether a failed span carries the error message (which may quote user input) or only its code. */
  readonly recordErrorMessages: boolean;
  /** How often metrics are exported. */
  readonly metricExportIntervalMs: number;
}

export const PROFILES: Readonly<Record<AppEnv, TelemetryProfile>> = {
  development: { metricCardinalityLimit: 2000, attributeValueLengthLimit: 4096, recordErrorMessages: true, metricExportIntervalMs: 10_000 },
  staging: { metricCardinalityLimit: 500, attributeValueLengthLimit: 1024, recordErrorMessages: true, metricExportIntervalMs: 30_000 },
  production: { metricCardinalityLimit: 200, attributeValueLengthLimit: 512, recordErrorMessages: false, metricExportIntervalMs: 60_000 },
};

/** Option, else `APP_ENV`, else development; any other value fails naming the variable. */
export function resolveAppEnv(option: AppEnv | undefined, env: NodeJS.ProcessEnv = process.env): AppEnv {
  const value = option ?? (env["APP_ENV"] || "development");
  if (Object.hasOwn(PROFILES, value)) return value as AppEnv;
  throw new RangeError(`APP_ENV must be development, staging or production`);
}
