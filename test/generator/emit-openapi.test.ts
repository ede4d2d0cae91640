/**
 * Emitted OpenAPI documents are valid against the official OpenAPI 3.0 schema and follow the seed's
 * rules; emitted JSON Schemas are valid draft-07 and accept their own examples.
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { Validator } from "@seriousme/openapi-schema-validator";
import { Ajv } from "ajv";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { buildOpenApi } from "../../runtime/spec/openapi.js";
import type { ComponentSpec } from "../../runtime/spec/types.js";

const generated = new URL("../../generated/", import.meta.url).pathname;

async function components(): Promise<string[]> {
  return (
    (await readdir(generated, { withFileTypes: true }))
      // A component's folder, not gen's own cache (`.manifold-cache/`, never committed).
      .filter((e) => e.isDirectory() && !e.name.startsWith("."))
      .map((e) => e.name)
      .sort()
  );
}

const spec: ComponentSpec = {
  kind: "tool",
  name: "sample-tool",
  description: "Sample",
  version: "1.0.0",
  capabilities: [
    {
      name: "with_both",
      key: "withBoth",
      description: "Both summaries",
      type: "tool",
      internal: false,
      endpoint: "/api/capabilities/with_both",
      input: { required: [{ name: "a", type: "integer", example: 3 }], optional: [{ name: "tags", type: "array", items: { type: "string" } }] },
      output: { required: [{ name: "nested", type: "object", fields: { required: [{ name: "x", type: "number" }], optional: [] } }], optional: [] },
    },
    { name: "bare", key: "bare", description: "No summaries", type: "reasoning", internal: true, endpoint: "/custom/bare" },
  ],
};

test("every generated openapi.json is valid OpenAPI 3.0", async () => {
  const names = await components();
  assert.ok(names.length >= 4, `components found: ${names.join(", ")}`);
  for (const name of names) {
    const doc = JSON.parse(await readFile(join(generated, name, "openapi.json"), "utf8")) as Parameters<Validator["validate"]>[0];
    const result = await new Validator().validate(doc);
    assert.ok(result.valid, `${name}: ${JSON.stringify(result.errors)}`);
  }
});

test("the seed's rules: info naming the kind, operationId, summary, tags, {name}Input/{name}Output schemas only for summaries, framework paths, nothing else", async () => {
  const doc = buildOpenApi(spec) as any;
  assert.ok((await new Validator().validate(doc)).valid);
  assert.is(doc.openapi, "3.0.0");
  assert.equal(doc.info, { title: "sample-tool", version: "1.0.0", description: "sample-tool is a tool: Sample" });
  assert.equal(Object.keys(doc.paths), ["/api/capabilities/with_both", "/custom/bare", "/api/capabilities", "/health"]);
  const both = doc.paths["/api/capabilities/with_both"].post;
  assert.is(both.operationId, "with_both");
  assert.is(both.summary, "Both summaries");
  assert.equal(both.tags, ["tool"]);
  assert.equal(both.requestBody.content["application/json"].schema, { $ref: "#/components/schemas/with_bothInput" });
  assert.equal(both.responses["200"].content["application/json"].schema, { $ref: "#/components/schemas/with_bothOutput" });
  const bare = doc.paths["/custom/bare"].post;
  assert.equal(bare.tags, ["reasoning", "internal"]);
  assert.equal(bare.requestBody.content["application/json"].schema, { type: "object" });
  assert.equal(bare.responses["200"], { description: "Successful response" });
  // Component schemas are named with the capability's manifest name, as the spec says; TypeScript types stay PascalCase.
  assert.equal(Object.keys(doc.components.schemas), ["with_bothInput", "with_bothOutput", "ErrorEnvelope"]);
  assert.equal(doc.components.schemas.with_bothInput.required, ["a"]);
  assert.is(doc.components.schemas.with_bothInput.properties.a.example, 3);
  for (const path of ["/api/capabilities", "/health"]) {
    assert.equal(Object.keys(doc.paths[path]), ["get"]);
    assert.equal(doc.paths[path].get.tags, ["framework"]);
  }
  assert.equal(doc.servers, [{ url: "/" }]);
  for (const code of ["400", "413", "415", "500", "503"])
    assert.equal(
      both.responses[code],
      { description: "Error envelope", content: { "application/json": { schema: { $ref: "#/components/schemas/ErrorEnvelope" } } } },
      code,
    );
  assert.ok(doc.components.schemas.ErrorEnvelope, "the envelope schema every error response refers to");
  assert.equal(doc.paths["/health"].get.responses["200"].content["application/json"].schema.required, ["status", "type", "name", "id"]);
  assert.is(doc.paths["/api/capabilities"].get.responses["200"].content["application/json"].schema.type, "array");
  assert.equal(buildOpenApi(spec, { servers: ["https://api.example/x"] }).servers, [{ url: "https://api.example/x" }]);
});

test("every generated schema file is valid draft-07 and accepts the examples of its fields", async () => {
  const ajv = new Ajv({ strict: true, allErrors: true });
  let count = 0;
  for (const name of await components()) {
    const dir = join(generated, name, "schemas");
    const files = (await readdir(dir, { recursive: true })).filter((f) => f.endsWith(".json")).sort();
    for (const file of files) {
      const schema = JSON.parse(await readFile(join(dir, file), "utf8")) as {
        $schema: string;
        properties: Record<string, { examples?: unknown[] }>;
        required?: string[];
      };
      assert.is(schema.$schema, "http://json-schema.org/draft-07/schema#");
      const validate = ajv.compile(schema);
      const sample: Record<string, unknown> = {};
      for (const [key, prop] of Object.entries(schema.properties)) if (prop.examples !== undefined) sample[key] = prop.examples[0];
      const complete = (schema.required ?? []).every((k) => k in sample);
      if (complete) assert.ok(validate(sample), `${name}/${file}: ${JSON.stringify(validate.errors)}`);
      assert.not.ok(validate({ ...sample, not_declared: 1 }), `${name}/${file} rejects undeclared fields`);
      count++;
    }
  }
  assert.ok(count >= 10, `schema files checked: ${count}`);
});

test.run();
