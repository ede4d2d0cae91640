/**
 * Spans of skills per request, children of the request's span. Attributes name skill versions and
 * resources (`skill.namespace`, `skill.name`, `skill.version`, `skill.resource`) and counts; a skill's
 * instructions or a resource's text is never one.
 */
import { toManifoldError } from "../errors/index.js";
import { ATTR, getTelemetry, type SpanAttributes, type SpanTrace } from "../telemetry/index.js";

/** A skill version as span attributes. */
export function skillAttributes(skill: { readonly namespace: string; readonly name: string; readonly version: string }): SpanAttributes {
  return { [ATTR.SKILL_NAMESPACE]: skill.namespace, [ATTR.SKILL_NAME]: skill.name, [ATTR.SKILL_VERSION]: skill.version };
}

/** Runs `work` inside a child span of the active one (nothing when telemetry is off); a failure ends it with its code. */
export async function inSpan<T>(name: string, attributes: SpanAttributes, work: (span: SpanTrace | undefined) => Promise<T>): Promise<T> {
  const telemetry = getTelemetry();
  const span = telemetry.enabled ? telemetry.startSpan(name, { parent: "active", attributes }) : undefined;
  if (span === undefined) return work(undefined);
  try {
    const value = await span.run(() => work(span));
    span.end();
    return value;
  } catch (error) {
    span.end(toManifoldError(error).code);
    throw error;
  }
}
