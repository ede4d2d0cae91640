/**
 * manifest.schema.json is assembled: the format's own part (format.schema.json: tools, workflows,
 * deployments, the agent's common keys) plus each agent feature's fragment under its key. The
 * committed manifest.schema.json is this assembly over the shipped feature list, written by
 * `npm run gen` and held equal by a test; the loader validates against the assembly of the list it
 * was given, so a feature's key is accepted exactly when its feature is.
 */
import { Ajv, type ValidateFunction } from "ajv";
import format from "./format.schema.json" with { type: "json" };
import type { ManifestFeature } from "./feature.js";

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
 * The compiled meta-schema for a feature list. Compiling is the slow part of ajv (about 80 ms), so it
 * happens once per list and process.
 */
export function manifestValidator(given: readonly ManifestFeature[]): ValidateFunction {
  const features = given.length === 0 ? NO_FEATURES : given;
  let validator = validators.get(features);
  if (validator === undefined) {
    // verbose: errors carry their schema, where the message annotations below live.
    const ajv = new Ajv({ allErrors: true, verbose: true, strict: true, strictRequired: false, allowUnionTypes: true });
    // The editor extensions VS Code's YAML/JSON support reads; we read them too, so both say the same.
    ajv.addKeyword({ keyword: "errorMessage", schemaType: "string" });
    ajv.addKeyword({ keyword: "patternErrorMessage", schemaType: "string" });
    validator = ajv.compile(assembleManifestSchema(features));
    validators.set(features, validator);
  }
  return validator;
}
