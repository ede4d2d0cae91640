/**
 * JSON Schema → manifest fields, best effort: what a `kind: mcp` server's tool schemas (and an
 * imported OpenAPI document's) become, so the types, the planner's catalog and the data-flow checker
 * see them like a hand-written manifest's fields. The result is the manifest's own document form
 * (`max_length`, `{required, optional}`), so it can be normalised, checked or written out as YAML.
 *
 * What maps: string, number, integer, boolean, object (`properties` → fields, `required`), array
 * (`items`), `enum`/`const`, `description`; `["x", "null"]` and `anyOf`/`oneOf`/`allOf` with one
 * non-null branch → that branch; `$ref` to `#/definitions/…` or `#/$defs/…` of the same document.
 * Everything else (unions, tuples, foreign refs, nesting past the bound) is `any`: the server's own
 * validation checks it at run time. An object whose property names are not field names is a
 * free-form object (no `fields`).
 *
 * For an OpenAPI import: `$ref`s may be any local JSON pointer (`#/components/schemas/…`), `allOf` of
 * several object branches is merged into one object, and `onLoss` hears of every place that became
 * `any` or free-form (its path in the document), so nothing is lost without a word.
 */
import type { FieldType } from "../spec/index.js";
import type { FieldDocument, FieldsDocument, ValueDocument } from "./dataflow/types.js";

/** Nesting (objects, arrays, followed `$ref`s) past which a value is `any`; below MF1320's 16. */
export const JSON_SCHEMA_MAX_DEPTH = 10;

const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const OBJECT_NAMES = new Set(Object.getOwnPropertyNames(Object.prototype));
const SCALARS: readonly FieldType[] = ["string", "number", "integer", "boolean"];
/** The format's bound on `max_length`. */
const MAX_LENGTH = 1_048_576;

type Schema = Readonly<Record<string, unknown>>;

/** Told where (the JSON pointer segments in the document) and why a schema was imported as `any` or free-form. */
export type SchemaLoss = (at: readonly string[], reason: string) => void;

export interface JsonSchemaOptions {
  /** The document local `$ref`s point into. @defaultValue the schema itself */
  readonly root?: unknown;
  /** Where the schema sits in `root` (JSON pointer segments), for `onLoss`. @defaultValue [] */
  readonly at?: readonly string[];
  /** @defaultValue ignore */
  readonly onLoss?: SchemaLoss | undefined;
  /** Nesting past which a value is `any` (an import keeps manifests small with less). @defaultValue JSON_SCHEMA_MAX_DEPTH */
  readonly maxDepth?: number | undefined;
}

interface Walk {
  /** The whole document, where local `$ref`s point. */
  readonly root: Schema;
  readonly depth: number;
  readonly at: readonly string[];
  readonly onLoss: SchemaLoss | undefined;
  readonly maxDepth: number;
}

const lost = (walk: Walk, reason: string): ValueDocument => {
  walk.onLoss?.(walk.at, reason);
  return { type: "any" };
};

function isSchema(value: unknown): value is Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Whether `name` may be a manifest field name (the format's rule, without the names every object has). */
export function isFieldName(name: string): boolean {
  return FIELD_NAME.test(name) && !OBJECT_NAMES.has(name);
}

/** The pointer segments of a local `$ref` (`#/definitions/Pet`, `#/components/schemas/Pet`), or undefined. */
export function refPath(ref: string): string[] | undefined {
  if (!ref.startsWith("#/")) return undefined;
  return ref
    .slice(2)
    .split("/")
    .map((part) => decodeURIComponent(part).replace(/~1/g, "/").replace(/~0/g, "~"));
}

/** The schema a local `$ref` names, or undefined for any other reference. */
function resolveRef(path: readonly string[] | undefined, root: Schema): Schema | undefined {
  let node: unknown = root;
  for (const part of path ?? [undefined]) {
    if (part === undefined || !isSchema(node) || !Object.hasOwn(node, part)) return undefined;
    node = node[part];
  }
  return isSchema(node) ? node : undefined;
}

function isNullSchema(schema: unknown): boolean {
  return isSchema(schema) && schema["type"] === "null" && Object.keys(schema).every((k) => k === "type" || k === "description" || k === "title");
}

/** The one branch of a composition that is not `null`, or undefined when there are several. */
function soleBranch(schema: Schema): unknown {
  for (const key of ["anyOf", "oneOf", "allOf"] as const) {
    const branches = schema[key];
    if (!Array.isArray(branches)) continue;
    const kept = branches.filter((b) => !isNullSchema(b));
    return kept.length === 1 ? kept[0] : undefined;
  }
  return undefined;
}

/** `allOf` whose branches (after local `$ref`s) are all objects: one object with every branch's members. */
function mergedAllOf(schema: Schema, walk: Walk): Schema | undefined {
  const branches = schema["allOf"];
  if (!Array.isArray(branches) || branches.length < 2 || ["anyOf", "oneOf", "not", "if"].some((k) => Object.hasOwn(schema, k))) return undefined;
  const properties: Record<string, unknown> = {};
  const required: unknown[] = [];
  for (const branch of branches) {
    const resolved = isSchema(branch) && typeof branch["$ref"] === "string" ? resolveRef(refPath(branch["$ref"]), walk.root) : branch;
    if (!isSchema(resolved) || hasComposition(resolved) || !isSchema(resolved["properties"])) return undefined;
    Object.assign(properties, resolved["properties"]);
    if (Array.isArray(resolved["required"])) required.push(...resolved["required"]);
  }
  const { allOf: _merged, ...rest } = schema;
  return { ...rest, type: "object", properties, required };
}

function hasComposition(schema: Schema): boolean {
  return ["anyOf", "oneOf", "allOf", "not", "if"].some((key) => Object.hasOwn(schema, key));
}

/** The declared type without `null`; undefined when none or several. */
function declaredType(schema: Schema): string | undefined {
  const type = schema["type"];
  if (typeof type === "string") return type;
  if (!Array.isArray(type)) return undefined;
  const kept = type.filter((t) => t !== "null");
  return kept.length === 1 && typeof kept[0] === "string" ? kept[0] : undefined;
}

function withDescription(value: ValueDocument, schema: Schema, outer?: Schema): ValueDocument {
  const description = typeof outer?.["description"] === "string" ? outer["description"] : schema["description"];
  return typeof description === "string" && description.trim() !== "" ? { ...value, description } : value;
}

/** `enum`/`const` values of one scalar type, with that type; undefined when they do not fit one. */
function enumValue(schema: Schema, type: string | undefined): ValueDocument | undefined {
  const given = Object.hasOwn(schema, "const") ? [schema["const"]] : schema["enum"];
  if (!Array.isArray(given)) return undefined;
  const values = given.filter((v) => v !== null);
  if (values.length === 0 || !values.every((v) => typeof v === "string" || typeof v === "number" || typeof v === "boolean")) return { type: "any" };
  const kinds = new Set(values.map((v) => typeof v));
  if (kinds.size !== 1) return { type: "any" };
  const kind = [...kinds][0] as "string" | "number" | "boolean";
  const inferred: FieldType = kind === "number" && type === "integer" && values.every((v) => Number.isInteger(v)) ? "integer" : kind;
  if (type !== undefined && type !== inferred && !(type === "number" && kind === "number")) return { type: "any" };
  return { type: inferred, enum: [...new Set(values as (string | number | boolean)[])] };
}

function valueFrom(schema: unknown, walk: Walk, outer?: Schema): ValueDocument {
  if (!isSchema(schema) || walk.depth > walk.maxDepth) {
    const why = walk.depth > walk.maxDepth ? `nested deeper than ${walk.maxDepth} levels (or recursive)` : "not a schema or an unresolved $ref";
    return withDescription(lost(walk, why), {}, outer);
  }
  const next = { ...walk, depth: walk.depth + 1 };
  if (typeof schema["$ref"] === "string") {
    const path = refPath(schema["$ref"]);
    return valueFrom(resolveRef(path, walk.root), { ...next, at: path ?? walk.at }, outer ?? schema);
  }
  const merged = mergedAllOf(schema, walk);
  if (merged !== undefined) return valueFrom(merged, walk, outer);
  if (hasComposition(schema)) {
    const key = ["anyOf", "oneOf", "allOf"].find((k) => Array.isArray(schema[k]));
    const branch = soleBranch(schema);
    if (branch === undefined) return withDescription(lost(walk, `${key ?? "not/if"} with several branches (a union) is any`), schema, outer);
    const index = key === undefined ? -1 : (schema[key] as unknown[]).indexOf(branch);
    return valueFrom(branch, { ...next, at: [...walk.at, key ?? "", String(index)] }, outer ?? schema);
  }
  const type = declaredType(schema) ?? (isSchema(schema["properties"]) ? "object" : undefined);
  const enumerated = enumValue(schema, type);
  if (enumerated !== undefined) return withDescription(enumerated, schema, outer);
  return withDescription(typedValue(schema, type, next), schema, outer);
}

function typedValue(schema: Schema, type: string | undefined, walk: Walk): ValueDocument {
  if (type === "string") {
    const max = schema["maxLength"];
    return typeof max === "number" && Number.isInteger(max) && max >= 1 && max <= MAX_LENGTH ? { type, max_length: max } : { type };
  }
  if (type !== undefined && (SCALARS as readonly string[]).includes(type)) return { type: type as FieldType };
  if (type === "array") return isSchema(schema["items"]) ? { type, items: valueFrom(schema["items"], { ...walk, at: [...walk.at, "items"] }) } : { type };
  if (type === "object") {
    const fields = objectFields(schema, walk);
    if (fields === undefined) walk.onLoss?.(walk.at, freeFormReason(schema));
    return fields === undefined ? { type } : { type, fields };
  }
  return type === undefined && Object.keys(schema).every((k) => k === "description" || k === "title")
    ? { type: "any" }
    : lost(walk, `type ${JSON.stringify(schema["type"] ?? null)} is any`);
}

function freeFormReason(schema: Schema): string {
  if (!isSchema(schema["properties"]))
    return schema["additionalProperties"] === undefined
      ? "an object without properties is free-form"
      : "free-form additionalProperties (a map) is a free-form object";
  return "property names that are not field names make a free-form object";
}

/** The members of an object schema, or undefined when it declares none a field can name (free-form). */
function objectFields(schema: Schema, walk: Walk): FieldsDocument | undefined {
  const properties = schema["properties"];
  if (!isSchema(properties)) return undefined;
  const names = Object.keys(properties);
  if (!names.every(isFieldName)) return undefined;
  const required = new Set(Array.isArray(schema["required"]) ? schema["required"].filter((r): r is string => typeof r === "string") : []);
  const field = (name: string): FieldDocument => ({ name, ...valueFrom(properties[name], { ...walk, at: [...walk.at, "properties", name] }) });
  return { required: names.filter((n) => required.has(n)).map(field), optional: names.filter((n) => !required.has(n)).map(field) };
}

/**
 * The fields of a JSON Schema describing an object (a tool's `inputSchema`, an operation's body),
 * or undefined when it is not an object with named properties: the side is then free-form.
 */
export function jsonSchemaFields(schema: unknown, options: JsonSchemaOptions = {}): FieldsDocument | undefined {
  if (!isSchema(schema)) return undefined;
  const value = jsonSchemaValue(schema, options);
  return value.type === "object" ? value.fields : undefined;
}

/** One JSON Schema as a manifest value (`type` and what goes with it). */
export function jsonSchemaValue(schema: unknown, { root = schema, at = [], onLoss, maxDepth = JSON_SCHEMA_MAX_DEPTH }: JsonSchemaOptions = {}): ValueDocument {
  return valueFrom(schema, { root: isSchema(root) ? root : {}, depth: 0, at, onLoss, maxDepth: Math.min(maxDepth, JSON_SCHEMA_MAX_DEPTH) });
}
