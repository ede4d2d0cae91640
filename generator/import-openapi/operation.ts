/**
 * One OpenAPI operation (3.0, 3.1 or Swagger 2.0) → one capability and its proxy mapping. Whatever
 * does not fit the manifest format is imported in the nearest safe form (`any`, a free-form object,
 * a wrapped answer) or left out, and every such place is a diagnostic naming the operation.
 */
import type { FieldDocument, FieldsDocument, ValueDocument } from "../../runtime/manifest/dataflow/types.js";
import { jsonSchemaValue, refPath } from "../../runtime/manifest/json-schema-fields.js";
import type { HttpMethod, ProxyOperation, ProxyParameter } from "../../runtime/outbound/index.js";
import { fieldNameOf } from "./names.js";

type Node = Readonly<Record<string, unknown>>;

export interface ImportDiagnostic {
  /** `file:line:col`. */
  readonly where: string;
  /**
   * `METHOD /path` of every operation the problem affects, in document order; empty for the document.
   * A problem in a shared schema (`components`, `definitions`) is one diagnostic at the schema's
   * position naming each operation that uses it, not one per operation.
   */
  readonly operations: readonly string[];
  readonly message: string;
}

export interface OperationContext {
  readonly root: Node;
  readonly swagger: boolean;
  readonly where: (path: readonly string[]) => string;
  readonly report: (diagnostic: ImportDiagnostic) => void;
}

export interface CapabilityDocument {
  readonly name: string;
  readonly description: string;
  readonly input?: FieldsDocument;
  readonly output?: FieldsDocument;
}

/**
 * Nesting (objects, arrays, followed `$ref`s) an import expands; deeper is `any`. The format has no
 * shared definitions, so every use of a schema is written out in full: large APIs (GitHub's) pass the
 * 1 MiB a manifest may hold at the general bound.
 */
export const IMPORT_MAX_DEPTH = 5;

const isNode = (value: unknown): value is Node => typeof value === "object" && value !== null && !Array.isArray(value);

/** A node and where it is, after following local `$ref`s (a bounded chain). */
function deref(node: unknown, at: readonly string[], root: Node): { node: Node | undefined; at: readonly string[] } {
  let current = node;
  let path = at;
  for (let hops = 0; hops < 10 && isNode(current) && typeof current["$ref"] === "string"; hops++) {
    const target = refPath(current["$ref"]);
    if (target === undefined) return { node: undefined, at: path };
    current = target.reduce<unknown>((n, part) => (isNode(n) && Object.hasOwn(n, part) ? n[part] : undefined), root);
    path = target;
  }
  return { node: isNode(current) ? current : undefined, at: path };
}

/** JSON media types: `application/json`, `application/problem+json`, `…; charset=utf-8`. */
const isJson = (type: string): boolean => /^application\/([a-z0-9.+-]*\+)?json\s*(;|$)/i.test(type);

/** Headers the outbound caller owns: a parameter of that name is not an input. */
const CALLER_HEADERS =
  /^(authorization|content-type|content-length|accept|host|connection|cookie|x-manifold-.*|x-workflow-id|x-step-id|traceparent|tracestate|baggage)$/i;

interface Builder {
  readonly required: FieldDocument[];
  readonly optional: FieldDocument[];
  readonly parameters: ProxyParameter[];
  readonly taken: Set<string>;
  bodyField?: string;
}

interface Place {
  readonly operation: string;
  readonly context: OperationContext;
  /** Diagnostics already given for this operation (`where` + message): a schema used twice is told once. */
  readonly said: Set<string>;
}

function say(place: Place, at: readonly string[], message: string): void {
  // Depth is one fact about the operation, however many branches it cuts.
  const depth = message.startsWith("nested deeper");
  const where = place.context.where(depth ? [] : at);
  const key = depth ? "depth" : `${where} ${message}`;
  if (place.said.has(key)) return;
  place.said.add(key);
  const text = depth ? `values nested deeper than ${IMPORT_MAX_DEPTH} levels (or recursive) are imported as any, checked by the service at run time` : message;
  place.context.report({
    where: depth ? place.context.where(["paths", place.operation.split(" ")[1]!, place.operation.split(" ")[0]!.toLowerCase()]) : where,
    operations: [place.operation],
    message: text,
  });
}

function schemaValue(schema: unknown, at: readonly string[], place: Place): ValueDocument {
  return jsonSchemaValue(schema, {
    root: place.context.root,
    at,
    maxDepth: IMPORT_MAX_DEPTH,
    onLoss: (where, reason) => say(place, where, `${reason}; imported as such, checked by the service at run time`),
  });
}

function addField(
  builder: Builder,
  place: Place,
  at: readonly string[],
  wire: { name: string; in: ProxyParameter["in"] },
  value: ValueDocument,
  required: boolean,
): string {
  let field = fieldNameOf(wire.name);
  if (builder.taken.has(field)) {
    const wanted = field;
    field = fieldNameOf(`${wire.in}_${wire.name}`);
    for (let n = 2; builder.taken.has(field); n++) field = fieldNameOf(`${wire.in}_${wire.name}_${n}`);
    say(place, at, `${wire.in} ${JSON.stringify(wire.name)} clashes with another input named ${wanted}; imported as ${field}`);
  } else if (field !== wire.name) {
    say(place, at, `${wire.in} ${JSON.stringify(wire.name)} is not a field name; imported as ${field}`);
  }
  builder.taken.add(field);
  (required ? builder.required : builder.optional).push({ name: field, ...value });
  builder.parameters.push({ field, in: wire.in, name: wire.name });
  return field;
}

/** A parameter's schema: OpenAPI 3's `schema` (or a JSON `content`), Swagger 2's type keys on the parameter itself. */
function parameterSchema(parameter: Node, at: readonly string[], swagger: boolean): { schema: unknown; at: readonly string[] } {
  if (!swagger || parameter["in"] === "body") {
    if (isNode(parameter["content"])) {
      const type = Object.keys(parameter["content"]).find(isJson);
      const media = type === undefined ? undefined : (parameter["content"] as Node)[type];
      return { schema: isNode(media) ? media["schema"] : undefined, at: [...at, "content", type ?? "", "schema"] };
    }
    return { schema: parameter["schema"], at: [...at, "schema"] };
  }
  const { name: _n, in: _i, required: _r, collectionFormat: _c, allowEmptyValue: _a, ...schema } = parameter;
  return { schema, at };
}

/** Path-level parameters, then the operation's (which win for the same name and location). */
function parametersOf(
  pathItem: Node,
  operation: Node,
  atPath: readonly string[],
  atOp: readonly string[],
  root: Node,
): { node: Node; at: readonly string[] }[] {
  const found = new Map<string, { node: Node; at: readonly string[] }>();
  for (const [list, at] of [
    [pathItem["parameters"], atPath],
    [operation["parameters"], atOp],
  ] as const) {
    if (!Array.isArray(list)) continue;
    list.forEach((entry, index) => {
      const resolved = deref(entry, [...at, "parameters", String(index)], root);
      if (resolved.node !== undefined && typeof resolved.node["name"] === "string")
        found.set(`${resolved.node["in"]}:${resolved.node["name"]}`, { node: resolved.node, at: resolved.at });
    });
  }
  return [...found.values()];
}

/** Adds the parameters; false when a required one cannot be sent (the operation is skipped). */
function addParameters(builder: Builder, place: Place, parameters: readonly { node: Node; at: readonly string[] }[], body: Node[]): boolean {
  for (const { node, at } of parameters) {
    const where = node["in"];
    const required = where === "path" || node["required"] === true;
    if (where === "body") {
      body.push(node);
      continue;
    }
    if (where === "path" || where === "query" || (where === "header" && !CALLER_HEADERS.test(String(node["name"])))) {
      const { schema, at: schemaAt } = parameterSchema(node, at, place.context.swagger);
      const value = schemaValue(schema, schemaAt, place);
      const described = typeof node["description"] === "string" && value.description === undefined ? { ...value, description: node["description"] } : value;
      addField(builder, place, at, { name: String(node["name"]), in: where }, described, required);
      continue;
    }
    const what =
      where === "header"
        ? `header ${JSON.stringify(node["name"])} is set by the outbound caller`
        : `${String(where)} parameter ${JSON.stringify(node["name"])} cannot be sent by the proxy`;
    say(place, at, required ? `${what} and is required: operation skipped` : `${what}: left out`);
    if (required) return false;
  }
  return true;
}

/** The JSON request body's schema, or why there is none; false when a required body cannot be sent. */
function requestSchema(
  operation: Node,
  atOp: readonly string[],
  swaggerBody: readonly Node[],
  place: Place,
): { schema: unknown; at: readonly string[]; required: boolean } | false | undefined {
  if (place.context.swagger) {
    const formData = Array.isArray(operation["parameters"]) && operation["parameters"].some((p) => isNode(p) && p["in"] === "formData");
    if (formData) {
      say(place, atOp, "a form (formData) body is not JSON: operation skipped");
      return false;
    }
    const [body] = swaggerBody;
    return body === undefined ? undefined : { schema: body["schema"], at: [...atOp, "parameters"], required: body["required"] === true };
  }
  const { node: requestBody, at } = deref(operation["requestBody"], [...atOp, "requestBody"], place.context.root);
  if (requestBody === undefined) return undefined;
  const content = isNode(requestBody["content"]) ? requestBody["content"] : {};
  const type = Object.keys(content).find(isJson);
  const required = requestBody["required"] === true;
  if (type === undefined) {
    const types = Object.keys(content).join(", ") || "no media type";
    say(place, [...at, "content"], `a request body that is not JSON (${types}) ${required ? "is required: operation skipped" : "is left out"}`);
    return required ? false : undefined;
  }
  const media = content[type];
  return { schema: isNode(media) ? media["schema"] : undefined, at: [...at, "content", type, "schema"], required };
}

function addBody(builder: Builder, place: Place, request: { schema: unknown; at: readonly string[]; required: boolean }): void {
  const value = schemaValue(request.schema, request.at, place);
  if (value.type === "object" && value.fields !== undefined) {
    for (const member of value.fields.required ?? []) addField(builder, place, request.at, { name: member.name, in: "body" }, strip(member), request.required);
    for (const member of value.fields.optional ?? []) addField(builder, place, request.at, { name: member.name, in: "body" }, strip(member), false);
    return;
  }
  builder.bodyField = addField(builder, place, request.at, { name: "body", in: "body" }, value, request.required);
  builder.parameters.pop(); // the whole body, not a member of it
}

const strip = ({ name: _name, ...value }: FieldDocument): ValueDocument => value;

/** The first 2xx answer's JSON schema (200 before 201 …, then `2XX`), or why there is none. */
function responseSchema(operation: Node, atOp: readonly string[], place: Place): { schema: unknown; at: readonly string[] } | undefined {
  const responses = isNode(operation["responses"]) ? operation["responses"] : {};
  const code = Object.keys(responses)
    .filter((c) => /^2(\d\d|XX)$/i.test(c))
    .sort()[0];
  if (code === undefined) return undefined;
  const { node: response, at } = deref(responses[code], [...atOp, "responses", code], place.context.root);
  if (response === undefined) return undefined;
  if (place.context.swagger) return response["schema"] === undefined ? undefined : { schema: response["schema"], at: [...at, "schema"] };
  const content = isNode(response["content"]) ? response["content"] : {};
  const type = Object.keys(content).find(isJson);
  if (type === undefined) {
    if (Object.keys(content).length > 0) say(place, [...at, "content"], `the ${code} answer is not JSON (${Object.keys(content).join(", ")}): output left out`);
    return undefined;
  }
  const media = content[type];
  return isNode(media) && media["schema"] !== undefined ? { schema: media["schema"], at: [...at, "content", type, "schema"] } : undefined;
}

function outputOf(operation: Node, atOp: readonly string[], place: Place): { output?: FieldsDocument; resultField?: string } {
  const response = responseSchema(operation, atOp, place);
  if (response === undefined) return {};
  const value = schemaValue(response.schema, response.at, place);
  if (value.type === "object" && value.fields !== undefined) return { output: value.fields };
  return { output: { optional: [{ name: "result", ...value }] }, resultField: "result" };
}

const nonEmpty = (fields: FieldsDocument): FieldsDocument | undefined => {
  const kept = { ...(fields.required?.length ? { required: fields.required } : {}), ...(fields.optional?.length ? { optional: fields.optional } : {}) };
  return Object.keys(kept).length === 0 ? undefined : kept;
};

export interface OperationInput {
  readonly capability: string;
  readonly method: string;
  readonly path: string;
  readonly pathItem: Node;
  readonly operation: Node;
  readonly atPath: readonly string[];
  readonly atOp: readonly string[];
}

/** The capability and its mapping, or undefined when the operation is skipped (and said so). */
export function importOperation(input: OperationInput, context: OperationContext): { capability: CapabilityDocument; proxy: ProxyOperation } | undefined {
  const { operation, method, path } = input;
  const place: Place = { operation: `${method.toUpperCase()} ${path}`, context, said: new Set() };
  const builder: Builder = { required: [], optional: [], parameters: [], taken: new Set() };
  const swaggerBody: Node[] = [];
  if (!addParameters(builder, place, parametersOf(input.pathItem, operation, input.atPath, input.atOp, context.root), swaggerBody)) return undefined;
  const request = requestSchema(operation, input.atOp, swaggerBody, place);
  if (request === false) return undefined;
  if (request !== undefined) addBody(builder, place, request);
  const { output, resultField } = outputOf(operation, input.atOp, place);
  const text = [operation["summary"], operation["description"]].find((t): t is string => typeof t === "string" && t.trim() !== "");
  const inputFields = nonEmpty({ required: builder.required, optional: builder.optional });
  const outputFields = output === undefined ? undefined : nonEmpty(output);
  return {
    capability: {
      name: input.capability,
      description: text?.trim() ?? place.operation,
      ...(inputFields === undefined ? {} : { input: inputFields }),
      ...(outputFields === undefined ? {} : { output: outputFields }),
    },
    proxy: {
      capability: input.capability,
      method: method.toUpperCase() as HttpMethod,
      path,
      parameters: builder.parameters,
      ...(builder.bodyField === undefined ? {} : { bodyField: builder.bodyField }),
      ...(resultField === undefined ? {} : { resultField }),
    },
  };
}
