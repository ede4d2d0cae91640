/**
 * `APP_ENV` picks a profile of safety and cardinality defaults. Each value is a default only: the
 * standard variable wins where one exists (`OTEL_TRACES_SAMPLER`, `OTEL_METRIC_EXPORT_INTERVAL`, …).
 */
export type AppEnv = "development" | "staging" | "production";

export interface TelemetryProfile {
  /** Share of new traces sampled (parent-based: a sampled caller's trace is always continued). */
  readonly sampleRatio: number;
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
  development: { sampleRatio: 1, metricCardinalityLimit: 2000, attributeValueLengthLimit: 4096, recordErrorMessages: true, metricExportIntervalMs: 10_000 },
  staging: { sampleRatio: 0.5, metricCardinalityLimit: 500, attributeValueLengthLimit: 1024, recordErrorMessages: true, metricExportIntervalMs: 30_000 },
  production: { sampleRatio: 0.1, metricCardinalityLimit: 200, attributeValueLengthLimit: 512, recordErrorMessages: false, metricExportIntervalMs: 60_000 },
};

/** Option, else `APP_ENV`, else development; any other value fails naming the variable. */
export function resolveAppEnv(option: AppEnv | undefined, env: NodeJS.ProcessEnv = process.env): AppEnv {
  const value = option ?? (env["APP_ENV"] || "development");
  if (Object.hasOwn(PROFILES, value)) return value as AppEnv;
  throw new RangeError(`APP_ENV must be development, staging or production`);
}
