import type { Ajv, ErrorObject } from "ajv";
import type { ErrorDetail } from "../errors/index.js";
import { lazyAjv } from "../util/index.js";
import { objectSchema, type JsonSchema } from "../spec/index.js";
import type { CapabilitySpec } from "../spec/index.js";

/** Returns the violations of a request body, or undefined when it is valid. */
export type InputValidator = (value: unknown) => readonly ErrorDetail[] | undefined;

/** A capability without an input summary still takes a JSON object, just any object. */
const ANY_OBJECT: JsonSchema = { type: "object" };

/** An ajv made, and the ajv package loaded, on its first use: a component that starts loads none of it. */
export type AjvSource = () => Ajv;

/**
 * One ajv per app: its schema cache then lives and dies with the app. Made when the app first validates.
 * validateSchema off: checking a schema against draft-07 compiled the whole meta-schema first (about
 * 40 ms of CPU per ajv on a quiet machine, several times that loaded), which the first request would now
 * pay. The schemas compiled here are built from manifests already checked by gen (objectSchema and the
 * task, workflow and schedule request schemas); ajv's strict mode still refuses an unknown keyword.
 */
export function createAjv(): AjvSource {
  return lazyAjv({ allErrors: true, validateSchema: false });
}

/** JSON pointer reference token escaping (RFC 6901): `~` first, then `/`. */
export function escapeToken(token: string): string {
  return token.replaceAll("~", "~0").replaceAll("/", "~1");
}

/**
 * ajv reports a missing or unknown property at the object that holds it; callers want to know which
 * property, so those point one level down, at the property itself.
 */
export function toDetail(error: ErrorObject): ErrorDetail {
  const { instancePath, keyword, params } = error;
  switch (keyword) {
    case "required":
      return { pointer: `${instancePath}/${escapeToken(String(params["missingProperty"]))}`, message: "is required" };
    case "additionalProperties":
      return { pointer: `${instancePath}/${escapeToken(String(params["additionalProperty"]))}`, message: "is not an allowed property" };
    case "enum": {
      const allowed = params["allowedValues"];
      const list = Array.isArray(allowed) ? allowed.map((v) => JSON.stringify(v)).join(", ") : "";
      return { pointer: instancePath, message: `must be one of ${list}` };
    }
    default:
      return { pointer: instancePath, message: error.message ?? `violates ${keyword}` };
  }
}

const shared = createAjv();

/**
 * A draft-07 schema compiled once into a validator returning the violations with their pointers
 * (`prefix` is put in front of each, `/input` for a task's input). It compiles on its first call (the
 * first request that validates pays it, a few ms, and loads ajv if nothing has yet), so starting a
 * component compiles nothing; every later call only runs the compiled function. @defaultValue ajv: one shared by the process
 */
export function compileValidator(
  schema: JsonSchema,
  { ajv = shared, prefix = "" }: { readonly ajv?: AjvSource; readonly prefix?: string } = {},
): InputValidator {
  let validate: ReturnType<Ajv["compile"]> | undefined;
  const detail =
    prefix === ""
      ? toDetail
      : (error: ErrorObject): ErrorDetail => {
          const found = toDetail(error);
          return { ...found, pointer: `${prefix}${found.pointer}` };
        };
  return (value) => {
    validate ??= ajv().compile(schema);
    return validate(value) ? undefined : (validate.errors ?? []).map(detail);
  };
}

/** Compiled once per capability, on its first call, with the app's ajv. */
export function compileInputValidator(ajv: AjvSource, capability: CapabilitySpec): InputValidator {
  return compileValidator(capability.input === undefined ? ANY_OBJECT : objectSchema(capability.input, "draft-07"), { ajv });
}
