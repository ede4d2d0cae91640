/**
 * Every call of a skill store is a `skills.store.<op>` span, child of whatever is active (an admin
 * route, a request's skill activation), with the skill's namespace, name and version (and the
 * resource path) as attributes: never its description, instructions or resource texts. Nothing is
 * done while telemetry is off.
 */
import { isManifoldError } from "../../errors/index.js";
import { ATTR, getTelemetry, type SpanAttributes } from "../../telemetry/index.js";
import type { SkillStore } from "./types.js";

/** `skills.store.<op>`: the span of one store call. */
export const storeSpanName = (op: string): string => `skills.store.${op}`;

async function traced<T>(op: string, attributes: SpanAttributes, work: () => Promise<T>): Promise<T> {
  const telemetry = getTelemetry();
  const span = telemetry.enabled ? telemetry.startSpan(storeSpanName(op), { parent: "active", attributes }) : undefined;
  if (span === undefined) return work();
  try {
    const result = await span.run(work);
    span.end();
    return result;
  } catch (error) {
    span.end(isManifoldError(error) ? error.code : "INTERNAL");
    throw error;
  }
}

/** Names are checked by the store after the span starts: an attribute is cut so a bad one stays small. */
const bounded = (value: unknown): string | undefined => (typeof value === "string" ? value.slice(0, 256) : undefined);

const skillAttributes = (namespace: string | undefined, name?: string, version?: string, resource?: string): SpanAttributes => ({
  [ATTR.SKILL_NAMESPACE]: bounded(namespace),
  [ATTR.SKILL_NAME]: bounded(name),
  [ATTR.SKILL_VERSION]: bounded(version),
  [ATTR.SKILL_RESOURCE]: bounded(resource),
});

/** The same store, each call in its span. */
export function tracedSkillStore(store: SkillStore): SkillStore {
  return {
    kind: store.kind,
    publish: (input) => traced("publish", skillAttributes(input.namespace, input.name, input.version), () => store.publish(input)),
    get: (namespace, name, version) => traced("get", skillAttributes(namespace, name, version), () => store.get(namespace, name, version)),
    list: (namespace) => traced("list", skillAttributes(namespace), () => store.list(namespace)),
    pin: (namespace, name, version) => traced("pin", skillAttributes(namespace, name, version), () => store.pin(namespace, name, version)),
    retire: (namespace, name, version) => traced("retire", skillAttributes(namespace, name, version), () => store.retire(namespace, name, version)),
    resource: (namespace, name, version, path) =>
      traced("resource", skillAttributes(namespace, name, version, path), () => store.resource(namespace, name, version, path)),
    close: () => store.close(),
  };
}
