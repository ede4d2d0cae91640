/**
 * The round trip of `manifold import openapi` for the supported subset: for every operation imported
 * without a diagnostic, the OpenAPI document gen emits from the imported manifest has that capability,
 * and its input and output schemas have the source's fields with the source's types (path, query and
 * header parameters plus a JSON body's properties in; the 2xx JSON answer's properties out).
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { parse } from "yaml";
import { loadProject } from "../../generator/load-project.js";
import { importDocument } from "../../generator/import-openapi/document.js";
import { importFiles } from "../../generator/import-openapi/index.js";
import { readSource } from "../../generator/import-openapi/source.js";
import { buildOpenApi, type ComponentSpec } from "../../runtime/spec/index.js";

type Json = Record<string, any>;
type Fields = Record<string, string>;
const METHODS = ["get", "put", "post", "delete", "patch", "head", "options"];

/** A local `$ref` followed (several hops), `allOf` of objects merged: what the source means. */
function resolve(document: Json, schema: Json | undefined, depth = 0): Json | undefined {
  if (schema === undefined || depth > 20) return schema;
  if (typeof schema["$ref"] === "string") {
    const target = (schema["$ref"] as string)
      .slice(2)
      .split("/")
      .reduce<any>((node, key) => node?.[key.replace(/~1/g, "/").replace(/~0/g, "~")], document);
    return resolve(document, target, depth + 1);
  }
  // The widening the import documents for a discriminated union: one object, the tag an enum, every variant's members.
  const union = schema["oneOf"] ?? schema["anyOf"];
  if (Array.isArray(union) && schema["discriminator"]?.["propertyName"] !== undefined) {
    const parts = (union as Json[]).map((part) => resolve(document, part, depth + 1) ?? {});
    const properties = Object.assign({}, ...parts.reverse().map((p) => p["properties"] ?? {}));
    return { type: "object", properties: { ...properties, [schema["discriminator"]["propertyName"]]: { type: "string" } } };
  }
  if (Array.isArray(schema["allOf"])) {
    const parts = (schema["allOf"] as Json[]).map((part) => resolve(document, part, depth + 1) ?? {});
    return { type: "object", properties: Object.assign({}, ...parts.map((p) => p["properties"] ?? {})) };
  }
  return schema;
}

function typeOf(document: Json, schema: Json | undefined): string {
  const resolved = resolve(document, schema) ?? {};
  const type = Array.isArray(resolved["type"]) ? resolved["type"].find((t: string) => t !== "null") : resolved["type"];
  return type ?? (resolved["properties"] !== undefined ? "object" : "any");
}

function propertiesOf(document: Json, schema: Json | undefined): Fields {
  const resolved = resolve(document, schema);
  const fields: Fields = {};
  for (const [name, property] of Object.entries<Json>(resolved?.["properties"] ?? {})) fields[name] = typeOf(document, property);
  return fields;
}

/** An object's properties; anything else is one field (`body` in, `result` out), as the import documents. */
function bodyFields(document: Json, schema: Json, single: string): Fields {
  const type = typeOf(document, schema);
  return type === "object" ? propertiesOf(document, schema) : { [single]: type };
}

/** The source operation's input fields and 2xx JSON output fields, Swagger 2.0 or OpenAPI 3.x. */
function sourceFields(document: Json, path: string, method: string): { input: Fields; output: Fields } {
  const item = document["paths"][path] as Json;
  const operation = item[method] as Json;
  const input: Fields = {};
  for (const raw of [...(item["parameters"] ?? []), ...(operation["parameters"] ?? [])] as Json[]) {
    const parameter = resolve(document, raw)!;
    if (parameter["in"] === "body") Object.assign(input, bodyFields(document, parameter["schema"], "body"));
    else if (["path", "query", "header"].includes(parameter["in"])) input[parameter["name"]] = typeOf(document, parameter["schema"] ?? parameter);
  }
  const body = resolve(document, operation["requestBody"])?.["content"]?.["application/json"]?.["schema"];
  if (body !== undefined) Object.assign(input, bodyFields(document, body, "body"));
  const status = Object.keys(operation["responses"] ?? {}).find((code) => /^2\d\d$/.test(code));
  const response = status === undefined ? undefined : resolve(document, operation["responses"][status]);
  const answer = response?.["content"]?.["application/json"]?.["schema"] ?? response?.["schema"];
  return { input, output: answer === undefined ? {} : bodyFields(document, answer, "result") };
}

function generatedFields(document: Json, schema: string): Fields {
  const fields: Fields = {};
  for (const [name, property] of Object.entries<Json>(document["components"]?.["schemas"]?.[schema]?.["properties"] ?? {}))
    fields[name] = property["type"] ?? (property["properties"] !== undefined ? "object" : "any");
  return fields;
}

async function importedSpec(file: string, name: string): Promise<{ spec: ComponentSpec; tool: ReturnType<typeof importDocument> }> {
  const tool = importDocument(await readSource(file), name);
  const dir = await mkdtemp(join(tmpdir(), "manifold-roundtrip-"));
  try {
    await writeFile(join(dir, `${name}.yaml`), importFiles(tool, file)[`${name}.yaml`]!);
    const project = await loadProject({ manifestsDir: dir });
    return { spec: project.manifests[0]!.component!, tool };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

for (const [file, name] of [
  ["test/fixtures/openapi/petstore-swagger2.yaml", "petstore"],
  ["test/fixtures/openapi/uspto-oas30.yaml", "uspto"],
  ["test/fixtures/openapi/train-travel-oas31.yaml", "train-travel"],
  ["test/fixtures/openapi/edge-cases-oas30.yaml", "edge-cases"],
] as const) {
  test(`${name}: gen's OpenAPI has every cleanly imported operation with the source's input and output fields and types`, async () => {
    const source = parse(await readFile(file, "utf8")) as Json;
    const { spec, tool } = await importedSpec(file, name);
    const emitted = buildOpenApi(spec) as Json;
    const flagged = new Set(
      tool.diagnostics
        // A credential is not a field; a widened discriminated union is compared as the widening (resolve above).
        .filter((d) => !d.message.startsWith("security scheme") && !/^(oneOf|anyOf) with a discriminator/.test(d.message))
        .flatMap((d) => d.operations),
    );
    const clean = tool.operations.filter((o) => o.capability !== undefined && !flagged.has(o.operation));
    assert.ok(clean.length >= 2, `${name}: at least two operations imported cleanly (${clean.length})`);
    for (const { operation, capability } of clean) {
      const [method, path] = operation.split(" ") as [string, string];
      assert.ok(METHODS.includes(method.toLowerCase()), operation);
      const expected = sourceFields(source, path, method.toLowerCase());
      const key = spec.capabilities.find((c) => c.name === capability)!;
      assert.ok(emitted["paths"][key.endpoint]?.["post"], `${capability} is an operation of the emitted document`);
      assert.equal(generatedFields(emitted, `${capability}Input`), expected.input, `${operation} input`);
      assert.equal(generatedFields(emitted, `${capability}Output`), expected.output, `${operation} output`);
    }
  });
}

test.run();
