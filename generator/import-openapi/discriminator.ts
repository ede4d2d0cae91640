/**
 * `oneOf`/`anyOf` with a `discriminator`: the manifest format has no unions, so such a schema is
 * widened, before the operations are read, into the nearest object the format can express: the
 * discriminator property a required string enum (the mapping's keys, else the variants' schema names),
 * every variant's members optional fields (required where every variant requires them). What is lost
 * (which members go with which tag) is checked by the service, and said once per widened schema, with
 * every operation that reaches it. A variant that is not an object with properties leaves the union as
 * it was (`any`, with its own diagnostic).
 */
import { refPath } from "../../runtime/manifest/json-schema-fields.js";

type Node = Readonly<Record<string, unknown>>;
const isNode = (value: unknown): value is Node => typeof value === "object" && value !== null && !Array.isArray(value);

/** Nesting walked looking for discriminated unions; a document deeper than this keeps its unions there. */
const MAX_WALK_DEPTH = 64;

export interface Widening {
  /** The document with each widenable discriminated union replaced (the input itself when there is none). */
  readonly root: Node;
  /** Why each widened schema changed, by its JSON pointer segments (JSON-encoded). */
  readonly widened: ReadonlyMap<string, string>;
}

const lookup = (path: readonly string[], root: Node): unknown =>
  path.reduce<unknown>((node, part) => (isNode(node) && Object.hasOwn(node, part) ? node[part] : undefined), root);

/** A variant's properties and required names: a local `$ref` followed, an `allOf` of objects merged. */
function variantOf(branch: unknown, root: Node, hops = 0): { name?: string | undefined; properties: Node; required: string[] } | undefined {
  if (hops > 10 || !isNode(branch)) return undefined;
  if (typeof branch["$ref"] === "string") {
    const path = refPath(branch["$ref"]);
    const found = path === undefined ? undefined : variantOf(lookup(path, root), root, hops + 1);
    return found === undefined ? undefined : { ...found, name: path!.at(-1) };
  }
  if (Array.isArray(branch["allOf"])) {
    const parts = branch["allOf"].map((part) => variantOf(part, root, hops + 1));
    if (parts.some((p) => p === undefined)) return undefined;
    return { properties: Object.assign({}, ...parts.map((p) => p!.properties)), required: parts.flatMap((p) => p!.required) };
  }
  if (!isNode(branch["properties"]) || ["oneOf", "anyOf", "not", "if"].some((k) => Object.hasOwn(branch, k))) return undefined;
  const required = Array.isArray(branch["required"]) ? branch["required"].filter((r): r is string => typeof r === "string") : [];
  return { properties: branch["properties"], required };
}

/** The widened object for one discriminated union, and what it says; undefined when it cannot be widened. */
function widen(schema: Node, root: Node): { schema: Node; message: string } | undefined {
  const key = Array.isArray(schema["oneOf"]) ? "oneOf" : Array.isArray(schema["anyOf"]) ? "anyOf" : undefined;
  const discriminator = schema["discriminator"];
  if (key === undefined || !isNode(discriminator) || typeof discriminator["propertyName"] !== "string") return undefined;
  const tag = discriminator["propertyName"];
  const variants = (schema[key] as unknown[]).map((branch) => variantOf(branch, root));
  if (variants.length === 0 || variants.some((v) => v === undefined)) return undefined;
  const mapping = isNode(discriminator["mapping"]) ? Object.keys(discriminator["mapping"]) : [];
  const tags = mapping.length > 0 ? mapping : variants.map((v) => v!.name);
  if (tags.some((t) => t === undefined)) return undefined;
  const properties: Record<string, unknown> = {};
  for (const variant of variants)
    for (const [name, property] of Object.entries(variant!.properties)) if (!Object.hasOwn(properties, name)) properties[name] = property;
  properties[tag] = { type: "string", enum: tags };
  const required = [tag, ...Object.keys(properties).filter((name) => name !== tag && variants.every((v) => v!.required.includes(name)))];
  const { [key]: _union, discriminator: _d, ...rest } = schema;
  const optional = Object.keys(properties).filter((name) => !required.includes(name));
  return {
    schema: { ...rest, type: "object", properties, required },
    message:
      `${key} with a discriminator (${tag}: ${tags.join(", ")}) is widened to one object: ${tag} a required enum, ` +
      `${optional.length === 0 ? "no member" : optional.join(", ")} optional whichever ${tag} is given; the service checks which go together`,
  };
}

/** Whether any schema has a `discriminator` next to a union: most documents have none, and skip the copying walk. */
function hasDiscriminator(node: unknown, depth = 0): boolean {
  if (depth > MAX_WALK_DEPTH || typeof node !== "object" || node === null) return false;
  if (Array.isArray(node)) return node.some((item) => hasDiscriminator(item, depth + 1));
  const record = node as Node;
  if (isNode(record["discriminator"]) && (Array.isArray(record["oneOf"]) || Array.isArray(record["anyOf"]))) return true;
  for (const key in record) if (hasDiscriminator(record[key], depth + 1)) return true;
  return false;
}

/** The document with its discriminated unions widened. */
export function widenDiscriminated(document: Node): Widening {
  const widened = new Map<string, string>();
  if (!hasDiscriminator(document)) return { root: document, widened };
  const walk = (node: unknown, at: readonly string[]): unknown => {
    if (at.length > MAX_WALK_DEPTH || typeof node !== "object" || node === null) return node;
    if (Array.isArray(node)) {
      const items = node.map((item, index) => walk(item, [...at, String(index)]));
      return items.every((item, index) => item === node[index]) ? node : items;
    }
    const record = node as Node;
    const result = widen(record, document);
    const base = result?.schema ?? record;
    if (result !== undefined) widened.set(JSON.stringify(at), result.message);
    let changed = result !== undefined;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(base)) {
      out[key] = key === "properties" && result !== undefined ? value : walk(value, [...at, key]);
      changed ||= out[key] !== value;
    }
    return changed ? out : node;
  };
  const root = walk(document, []) as Node;
  return { root, widened };
}

/**
 * The widened schemas an operation reaches (its own schemas and the `$ref`s they follow), as JSON
 * pointer segments, in the order met. Each `$ref` target is walked once.
 */
export function widenedReached(start: readonly { node: unknown; at: readonly string[] }[], root: Node, widened: ReadonlyMap<string, string>): string[][] {
  if (widened.size === 0) return [];
  const seen = new Set<string>();
  const found: string[][] = [];
  const walk = (node: unknown, at: readonly string[], depth: number): void => {
    if (depth > MAX_WALK_DEPTH || typeof node !== "object" || node === null) return;
    const key = JSON.stringify(at);
    if (widened.has(key) && !found.some((f) => JSON.stringify(f) === key)) found.push([...at]);
    if (Array.isArray(node)) return node.forEach((item, index) => walk(item, [...at, String(index)], depth + 1));
    const record = node as Node;
    if (typeof record["$ref"] === "string") {
      const path = refPath(record["$ref"]);
      if (path === undefined || seen.has(JSON.stringify(path))) return;
      seen.add(JSON.stringify(path));
      return walk(lookup(path, root), path, depth + 1);
    }
    for (const [name, value] of Object.entries(record)) walk(value, [...at, name], depth + 1);
  };
  for (const { node, at } of start) walk(node, at, 0);
  return found;
}
