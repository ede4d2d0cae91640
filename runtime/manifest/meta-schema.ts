import { Ajv, type ValidateFunction } from "ajv";
import schema from "../../manifest.schema.json" with { type: "json" };

/** manifest.schema.json as data: a draft-07 JSON Schema. */
export interface ManifestSchema {
  readonly $schema: string;
  readonly $id: string;
  readonly title: string;
  readonly definitions: { readonly [name: string]: unknown };
  readonly [keyword: string]: unknown;
}

// Annotated, so the emitted declaration names this type instead of re-exporting the JSON module: a
// .d.ts import of JSON loses its `with { type: "json" }` and fails under `module: nodenext` (TS1543).
export const MANIFEST_SCHEMA: ManifestSchema = schema;

let validator: ValidateFunction | undefined;

/** The compiled meta-schema. Compiling is the slow part of ajv, so it happens once per process. */
export function manifestValidator(): ValidateFunction {
  if (validator === undefined) {
    // verbose: errors carry their schema, where the message annotations below live.
    const ajv = new Ajv({ allErrors: true, verbose: true, strict: true, strictRequired: false, allowUnionTypes: true });
    // The editor extensions VS Code's YAML/JSON support reads; we read them too, so both say the same.
    ajv.addKeyword({ keyword: "errorMessage", schemaType: "string" });
    ajv.addKeyword({ keyword: "patternErrorMessage", schemaType: "string" });
    validator = ajv.compile(schema);
  }
  return validator;
}
