/**
 * An external MCP tool's raw JSON Schemas, compiled once with ajv into checks that answer the
 * violations with JSON pointers, under the conventions of the component's validator
 * (runtime/component/validate.ts): a missing or unknown property points at the property itself.
 * That file sits a layer above this one, hence this small copy of its mapping.
 */
import type { Ajv, ErrorObject } from "ajv";
import type { ErrorDetail } from "../errors/index.js";
import { lazyAjv } from "../util/index.js";

export type SchemaCheck = (value: unknown) => readonly ErrorDetail[] | undefined;

const escapeToken = (token: string): string => token.replaceAll("~", "~0").replaceAll("/", "~1");

function toDetail({ instancePath, keyword, params, message }: ErrorObject): ErrorDetail {
  if (keyword === "required") return { pointer: `${instancePath}/${escapeToken(String(params["missingProperty"]))}`, message: "is required" };
  if (keyword === "additionalProperties")
    return { pointer: `${instancePath}/${escapeToken(String(params["additionalProperty"]))}`, message: "is not an allowed property" };
  return { pointer: instancePath, message: message ?? `violates ${keyword}` };
}

/** Made with the first schema compiled: a process that never calls an MCP tool loads no ajv. */
const shared = lazyAjv({ allErrors: true, strict: false, validateFormats: false });

/**
 * A server's schema is not ours: unknown keywords and formats are tolerated (strict off), and the
 * `$schema` it names is dropped (the SDK's zod schemas say draft-07; what ajv cannot compile is not
 * checked here at all, and the server still checks its own input). The prefix goes before each pointer.
 */
export function compileSchemaCheck(schema: Readonly<Record<string, unknown>>, prefix = ""): SchemaCheck {
  const { $schema: _ignored, ...rest } = schema;
  let validate: ReturnType<Ajv["compile"]>;
  try {
    validate = shared().compile(rest);
  } catch {
    return () => undefined;
  }
  return (value) => {
    if (validate(value)) return undefined;
    return (validate.errors ?? []).map((error) => {
      const detail = toDetail(error);
      return prefix === "" ? detail : { ...detail, pointer: `${prefix}${detail.pointer}` };
    });
  };
}
