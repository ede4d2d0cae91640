/**
 * Runs the meta-schema and turns ajv's errors into one positioned diagnostic per real problem.
 * ajv reports in JSON-pointer terms and, for if/then, adds a wrapper error for every failed branch;
 * users want the key they mistyped, the place to fix, and the allowed values.
 */
import type { ErrorObject } from "ajv";
import type { DiagnosticCode } from "./codes.js";
import { createDiagnostic, type Position } from "./diagnostics/create.js";
import type { Diagnostic } from "./project.js";
import type { ManifestFeature } from "./feature.js";
import { manifestValidator } from "./meta-schema.js";
import { isNode } from "./yaml.js";
import { displayPath, isFlowMapping, keyPosition, valuePosition, type Path, type SourceFile } from "./source-file.js";
import { closest } from "./dataflow/index.js";
import { describeType, expectedType, isRecord, quote } from "./values.js";

export function checkSchema(source: SourceFile, value: Record<string, unknown>, features: readonly ManifestFeature[]): Diagnostic[] {
  const validate = manifestValidator(features);
  if (validate(value)) return [];
  const errors = validate.errors ?? [];
  const withType = new Set(errors.filter((e) => e.keyword === "type").map((e) => e.instancePath));
  return (
    errors
      // `if` only says a branch failed (the branch's own errors say why); `propertyNames` wraps the
      // pattern error that names the key; a wrong type makes enum/pattern errors on the same value noise.
      .filter((e) => e.keyword !== "if" && e.keyword !== "propertyNames" && !(e.keyword !== "type" && withType.has(e.instancePath)))
      .map((e) => toDiagnostic(source, value, e))
  );
}

/** JSON pointer → path, with list indexes as numbers so messages can show `capabilities[0]`. */
function pointerToPath(root: unknown, pointer: string): Path {
  const path: (string | number)[] = [];
  let current = root;
  for (const raw of pointer === "" ? [] : pointer.slice(1).split("/")) {
    const segment = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (Array.isArray(current)) {
      const index = Number(segment);
      path.push(index);
      current = current[index];
    } else {
      path.push(segment);
      current = isRecord(current) && Object.hasOwn(current, segment) ? current[segment] : undefined;
    }
  }
  return path;
}

function annotation(error: ErrorObject, name: "errorMessage" | "patternErrorMessage"): string | undefined {
  const text: unknown = error.parentSchema?.[name];
  return typeof text === "string" ? text : undefined;
}

function title(error: ErrorObject): string {
  const text: unknown = error.parentSchema?.["title"];
  return typeof text === "string" ? text : "mapping";
}

interface Mapped {
  readonly code: DiagnosticCode;
  readonly position: Position;
  readonly message: string;
}

function toDiagnostic(source: SourceFile, root: Record<string, unknown>, error: ErrorObject): Diagnostic {
  const mapped = mapError(source, root, error);
  return createDiagnostic(mapped.code, source.file, mapped.position, mapped.message);
}

/** What every keyword's mapping reads: the error, where it points in the document, and how to name that place. */
interface Failed {
  readonly source: SourceFile;
  readonly error: ErrorObject;
  readonly path: Path;
  /** The path as the message shows it, in backticks. */
  readonly at: string;
  /** The schema's own `errorMessage` for this place, if it has one. */
  readonly custom: string | undefined;
  readonly params: Record<string, unknown>;
  readonly data: unknown;
}

/** A property name that breaks its pattern (`propertyNames`): point at the key itself. */
function badKeyName({ source, error, path, at, params }: Failed, key: string): Mapped {
  const rule = annotation(error, "patternErrorMessage") ?? `it must match ${String(params["pattern"])}`;
  return { code: "MF1205", position: keyPosition(source, [...path, key]), message: `key \`${key}\` in ${at} is invalid: ${rule}` };
}

function unknownKey({ source, error, path, at, params }: Failed): Mapped {
  const key = String(params["additionalProperty"]);
  const properties: unknown = error.parentSchema?.["properties"];
  const allowed = isRecord(properties) ? Object.keys(properties) : [];
  const guess = closest(key, allowed);
  const where = path.length === 0 ? "" : ` at ${at}`;
  const hint = guess === undefined ? "" : ` (did you mean \`${guess}\`?)`;
  // `{ description: Days, 1 to 7 }` reads as a key `1 to 7`: the usual cause of a key with spaces.
  const comma = /\s/.test(key) && isFlowMapping(source, path) ? "; a comma inside `{ … }` ends a value, so quote text that contains one" : "";
  return {
    code: "MF1201",
    position: keyPosition(source, [...path, key]),
    message: `unknown key \`${key}\` in ${title(error)}${where}${hint}; allowed keys: ${allowed.join(", ")}${comma}`,
  };
}

function missingKey({ source, error, path, at, custom, params }: Failed): Mapped {
  const where = path.length === 0 ? "" : ` at ${at}`;
  const message = custom ?? `${title(error)}${where} is missing required key \`${String(params["missingProperty"])}\``;
  return { code: "MF1202", position: valuePosition(source, path), message };
}

function wrongType({ source, path, at, params, data }: Failed): Mapped {
  const literal = sourceText(source, path);
  const quoteHint =
    params["type"] === "string" && (typeof data === "number" || typeof data === "boolean") && literal !== undefined
      ? `; quote it to keep it text: "${literal}"`
      : "";
  return {
    code: "MF1203",
    position: valuePosition(source, path),
    message: `${at} must be ${expectedType(params["type"])}, got ${describeType(data)}${quoteHint}`,
  };
}

function notAllowedValue({ source, path, at, params, data }: Failed): Mapped {
  const allowed = Array.isArray(params["allowedValues"]) ? params["allowedValues"].map(String) : [];
  const guess = typeof data === "string" ? closest(data, allowed) : undefined;
  const hint = guess === undefined ? "" : ` (did you mean ${quote(guess)}?)`;
  return { code: "MF1204", position: valuePosition(source, path), message: `${at} must be one of ${allowed.join(", ")}; got ${quote(data)}${hint}` };
}

function tooSmall({ source, error, path, at, params }: Failed): Mapped {
  const limit = Number(params["limit"]);
  const unit = error.keyword === "minItems" ? "item" : error.keyword === "minLength" ? "character" : "key";
  const message = limit === 1 ? `${at} must not be empty` : `${at} must have at least ${limit} ${unit}s`;
  return { code: "MF1207", position: valuePosition(source, path), message };
}

function mapError(source: SourceFile, root: Record<string, unknown>, error: ErrorObject): Mapped {
  const path = pointerToPath(root, error.instancePath);
  const failed: Failed = {
    source,
    error,
    path,
    at: `\`${displayPath(path)}\``,
    custom: annotation(error, "errorMessage"),
    params: error.params,
    data: error.data,
  };
  const { at, custom, params, data } = failed;
  if (error.propertyName !== undefined) return badKeyName(failed, error.propertyName);
  switch (error.keyword) {
    case "additionalProperties":
      return unknownKey(failed);
    case "required":
      return missingKey(failed);
    case "type":
      return wrongType(failed);
    case "enum":
      return notAllowedValue(failed);
    case "pattern": {
      const rule = annotation(error, "patternErrorMessage") ?? `it must match ${String(params["pattern"])}`;
      return { code: "MF1205", position: valuePosition(source, path), message: `${at} ${quote(data)} is invalid: ${rule}` };
    }
    case "minimum":
    case "maximum":
    case "exclusiveMinimum":
    case "exclusiveMaximum": {
      const bound = error.keyword.toLowerCase().endsWith("minimum") ? "at least" : "at most";
      return { code: "MF1206", position: valuePosition(source, path), message: `${at} must be ${bound} ${String(params["limit"])}, got ${quote(data)}` };
    }
    case "minItems":
    case "minLength":
    case "minProperties":
      return tooSmall(failed);
    case "uniqueItems": {
      const index = Number(params["i"]);
      const item = Array.isArray(data) ? data[index] : undefined;
      return { code: "MF1208", position: valuePosition(source, [...path, index]), message: `${at} lists ${quote(item)} more than once` };
    }
    case "not":
      return { code: "MF1209", position: keyPosition(source, path), message: custom ?? `${at} is not allowed here` };
    default:
      // Every keyword the meta-schema uses is mapped above; this keeps a future keyword visible, not lost.
      return { code: "MF1204", position: valuePosition(source, path), message: custom ?? `${at} ${error.message ?? "is invalid"}` };
  }
}

/** The value exactly as written, for hints such as quoting `1.0`. */
function sourceText(source: SourceFile, path: Path): string | undefined {
  const node = source.document?.getIn(path, true);
  if (!isNode(node) || node.range == null) return undefined;
  const [start, end] = node.range;
  const text = source.text.slice(start, end).trim();
  return text === "" || text.length > 40 ? undefined : text;
}
