/**
 * Every call of a skill store is a `skills.store.<op>` span, child of whatever is active (an admin
 * route, a request's skill activation), with the skill's namespace, name and version (and the
 * resource path) as attributes: never its description, instructions or resource texts. Nothing is
 * done while telemetry is off.
 */
import { ATTR, type SpanAttributes } from "../../telemetry/index.js";
import { inSpan } from "../context-telemetry.js";
import type { SkillStore } from "./types.js";

/** `skills.store.<op>`: the span of one store call. */
export const storeSpanName = (op: string): string => `skills.store.${op}`;

const traced = <T>(op: string, attributes: SpanAttributes, work: () => Promise<T>): Promise<T> => inSpan(storeSpanName(op), attributes, work);

/** Names are checked by the store after the span starts: an attribute is cut so a bad one stays small. */
const bounded = (value: unknown): string | undefined => (typeof value === "string" ? value.slice(0, 256) : undefined);

/** A skill (and resource) a caller named, as span attributes; used by the admin routes too. */
export const skillSpanAttributes = (namespace: string | undefined, name?: string, version?: string, resource?: string): SpanAttributes => ({
  [ATTR.SKILL_NAMESPACE]: bounded(namespace),
  [ATTR.SKILL_NAME]: bounded(name),
  [ATTR.SKILL_VERSION]: bounded(version),
  [ATTR.SKILL_RESOURCE]: bounded(resource),
});

/** The same store, each call in its span. */
export function tracedSkillStore(store: SkillStore): SkillStore {
  return {
    kind: store.kind,
    publish: (input) => traced("publish", skillSpanAttributes(input.namespace, input.name, input.version), () => store.publish(input)),
    get: (namespace, name, version) => traced("get", skillSpanAttributes(namespace, name, version), () => store.get(namespace, name, version)),
    list: (namespace) => traced("list", skillSpanAttributes(namespace), () => store.list(namespace)),
    pin: (namespace, name, version) => traced("pin", skillSpanAttributes(namespace, name, version), () => store.pin(namespace, name, version)),
    retire: (namespace, name, version) => traced("retire", skillSpanAttributes(namespace, name, version), () => store.retire(namespace, name, version)),
    resource: (namespace, name, version, path) =>
      traced("resource", skillSpanAttributes(namespace, name, version, path), () => store.resource(namespace, name, version, path)),
    close: () => store.close(),
  };
}
