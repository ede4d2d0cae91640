/**
 * Does a value fit a field? The same draft-07 schema the runtime validates requests with decides, so an
 * example that passes here is one the running component would accept.
 */
import type { Ajv, ErrorObject, ValidateFunction } from "ajv";
import { valueSchema } from "../spec/index.js";
import type { ValueSpec } from "../spec/index.js";
import { requireAjv } from "../util/index.js";
import { expectedType, quote } from "./values.js";

let ajv: Ajv | undefined;
const cache = new Map<string, ValidateFunction>();
const MAX_CACHED = 500;

function validatorFor(value: ValueSpec): ValidateFunction {
  // The example itself and descriptions do not change what fits; leaving them out keeps the cache small.
  const { example: _example, description: _description, ...shape } = value;
  const schema = valueSchema(shape, "draft-07");
  const key = JSON.stringify(schema);
  let validate = cache.get(key);
  if (validate === undefined) {
    // ajv keeps every schema it compiled; starting over bounds memory in a long-lived process.
    if (cache.size >= MAX_CACHED) {
      cache.clear();
      ajv = undefined;
    }
    ajv ??= new (requireAjv())({ allErrors: false, strict: false });
    validate = ajv.compile(schema);
    cache.set(key, validate);
  }
  return validate;
}

/** `/wind/gusts/0` → `wind.gusts[0]`. */
function pointerText(pointer: string): string {
  return pointer
    .slice(1)
    .split("/")
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"))
    .map((s, i) => (/^\d+$/.test(s) ? `[${s}]` : i === 0 ? s : `.${s}`))
    .join("");
}

function describe(error: ErrorObject): string {
  const where = error.instancePath === "" ? "" : `\`${pointerText(error.instancePath)}\` `;
  const params: Record<string, unknown> = error.params;
  switch (error.keyword) {
    case "type":
      return `${where}must be ${expectedType(params["type"])}`;
    case "enum":
      return `${where}must be one of ${Array.isArray(params["allowedValues"]) ? params["allowedValues"].map((v) => quote(v)).join(", ") : "the enum values"}`;
    case "additionalProperties":
      return `${where === "" ? "it " : where}has a member \`${String(params["additionalProperty"])}\` the field does not declare`;
    case "required":
      return `${where === "" ? "it " : where}lacks the required member \`${String(params["missingProperty"])}\``;
    default:
      return `${where}${error.message ?? "does not fit"}`;
  }
}

/**
 * True only where the schema certainly accepts the example: a scalar of a scalar field's type (and enum). Most examples
 * are such, and ajv (about 60 modules and a compile per shape, ~7 % of a cold gen) then never loads.
 * Anything else, and every misfit (whose message ajv words), goes to ajv.
 */
function surelyFits(value: ValueSpec, example: unknown): boolean {
  // A scalar in the enum (ajv compares by value; for a scalar that is ===), and of the type as well.
  if (value.enum !== undefined && (typeof example === "object" || !value.enum.includes(example as never))) return false;
  switch (value.type) {
    case "any":
      return true;
    case "string":
      // UTF-16 length is never below ajv's code-point count, so within it is within ajv's maxLength.
      return typeof example === "string" && (value.maxLength === undefined || example.length <= value.maxLength);
    case "number":
      return typeof example === "number" && Number.isFinite(example);
    case "integer":
      return Number.isInteger(example);
    case "boolean":
      return typeof example === "boolean";
    default:
      return false;
  }
}

/** Why `example` does not fit `value`, or undefined when it fits. */
export function exampleProblem(value: ValueSpec, example: unknown): string | undefined {
  if (surelyFits(value, example)) return undefined;
  const validate = validatorFor(value);
  if (validate(example)) return undefined;
  const first = validate.errors?.[0];
  return first === undefined ? "it does not fit" : describe(first);
}

/** Enum values are scalars; this says whether one has the field's type (shared with the workflow checker). */
export { fitsType } from "./dataflow/value-types.js";
