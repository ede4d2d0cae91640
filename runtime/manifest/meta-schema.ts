/**
 * manifest.schema.json is assembled: the format's own part (format.schema.json: tools, workflows,
 * deployments, the agent's common keys) plus each agent feature's fragment under its key. The
 * committed manifest.schema.json is this assembly over the shipped feature list, written by
 * `npm run gen` and held equal by a test; the loader validates against the assembly of the list it
 * was given, so a feature's key is accepted exactly when its feature is.
 */
import { createHash } from "node:crypto";
import type { Ajv, Options, ValidateFunction } from "ajv";
import format from "./format.schema.json" with { type: "json" };
import type { ManifestFeature } from "./feature.js";
import { validate as precompiled, SCHEMA_SHA256 } from "./meta-schema-validator.js";
import { requireAjv } from "../util/index.js";

/** A manifest meta-schema as data: a draft-07 JSON Schema. */
export interface ManifestSchema {
  readonly $schema: string;
  readonly $id: string;
  readonly title: string;
  readonly definitions: { readonly [name: string]: unknown };
  readonly [keyword: string]: unknown;
}

// Annotated, so the emitted declaration names this type instead of re-exporting the JSON module: a
// .d.ts import of JSON loses its `with { type: "json" }` and fails under `module: nodenext` (TS1543).
/** The format without any agent feature. */
export const FORMAT_SCHEMA: ManifestSchema = format;

type Definitions = Record<string, Record<string, unknown>>;

/**
 * The meta-schema with each feature's property added to the agent definition and its definitions
 * placed after the agent's, in feature-list order (the order the agent's keys are listed in messages).
 * Two features claiming one key or one definition is a programming error, thrown at once.
 */
export function assembleManifestSchema(features: readonly Pick<ManifestFeature, "key" | "schema">[]): ManifestSchema {
  const base = structuredClone(FORMAT_SCHEMA) as ManifestSchema & { definitions: Definitions };
  const agent = base.definitions["agent"] as { properties: Record<string, unknown> };
  const added: Definitions = {};
  for (const { key, schema } of features) {
    if (Object.hasOwn(agent.properties, key)) throw new Error(`agent feature key \`${key}\` is already part of the agent manifest`);
    agent.properties[key] = structuredClone(schema.property);
    for (const [name, definition] of Object.entries(schema.definitions ?? {})) {
      if (Object.hasOwn(base.definitions, name) || Object.hasOwn(added, name))
        throw new Error(`schema definition \`${name}\` of feature \`${key}\` is already defined`);
      added[name] = structuredClone(definition);
    }
  }
  const definitions: Definitions = {};
  for (const [name, definition] of Object.entries(base.definitions)) {
    definitions[name] = definition;
    if (name === "agent") Object.assign(definitions, added);
  }
  return { ...base, definitions };
}

const validators = new WeakMap<readonly ManifestFeature[], ValidateFunction>();
/** Every empty list is this one: the format without features compiles once however its callers spell `[]`. */
const NO_FEATURES: readonly ManifestFeature[] = [];

/**
 * ajv as the meta-schema is checked with, here and by tools/write-manifest-schema.ts, which compiles
 * the shipped assembly ahead of time with these same options (`code` added): both must report alike.
 */
export function createManifestAjv(extra: Options = {}): Ajv {
  // ajv (about 50 modules) loads only when a schema is compiled here: the shipped assembly is precompiled.
  const Ajv = requireAjv();
  // verbose: errors carry their schema, where the message annotations below live.
  const ajv = new Ajv({ allErrors: true, verbose: true, strict: true, strictRequired: false, allowUnionTypes: true, ...extra });
  // The editor extensions VS Code's YAML/JSON support reads; we read them too, so both say the same.
  ajv.addKeyword({ keyword: "errorMessage", schemaType: "string" });
  ajv.addKeyword({ keyword: "patternErrorMessage", schemaType: "string" });
  return ajv;
}

/** The hash meta-schema-validator.ts records of the schema it was compiled from. */
export function schemaHash(schema: ManifestSchema): string {
  return createHash("sha256").update(JSON.stringify(schema)).digest("hex");
}

/**
 * The compiled meta-schema for a feature list, once per list and process. Compiling is ajv's slow part
 * (0.2 s warm, 0.45 s in a cold gen's profile), so the shipped assembly is compiled ahead of time
 * (meta-schema-validator.ts, written by `npm run gen`); any other list, or a stale precompiled module,
 * is compiled here.
 */
export function manifestValidator(given: readonly ManifestFeature[]): ValidateFunction {
  const features = given.length === 0 ? NO_FEATURES : given;
  let validator = validators.get(features);
  if (validator === undefined) {
    const schema = assembleManifestSchema(features);
    validator = schemaHash(schema) === SCHEMA_SHA256 ? (precompiled as ValidateFunction) : createManifestAjv().compile(schema);
    validators.set(features, validator);
  }
  return validator;
}
