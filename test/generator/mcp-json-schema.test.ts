/**
 * JSON Schema → manifest fields (runtime/manifest/json-schema-fields.ts), what a `kind: mcp` tool's
 * schemas become: the types, the planner's catalog and the data-flow checker read the result.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { JSON_SCHEMA_MAX_DEPTH, capabilityNameOf, jsonSchemaFields, jsonSchemaValue } from "../../runtime/manifest/index.js";

test("scalars, enums, descriptions, required and optional members map to fields", () => {
  const fields = jsonSchemaFields({
    type: "object",
    properties: {
      q: { type: "string", description: "What to find", maxLength: 200 },
      n: { type: "integer" },
      ratio: { type: "number" },
      on: { type: "boolean" },
      mode: { type: "string", enum: ["fast", "slow"] },
      level: { const: 3 },
    },
    required: ["q", "mode"],
  });
  assert.equal(fields, {
    required: [
      { name: "q", type: "string", max_length: 200, description: "What to find" },
      { name: "mode", type: "string", enum: ["fast", "slow"] },
    ],
    optional: [
      { name: "n", type: "integer" },
      { name: "ratio", type: "number" },
      { name: "on", type: "boolean" },
      { name: "level", type: "number", enum: [3] },
    ],
  });
});

test("objects nest as fields, arrays keep their items; an object without properties is free-form", () => {
  const value = jsonSchemaValue({
    type: "object",
    properties: {
      notes: { type: "array", items: { type: "object", properties: { id: { type: "string" } }, required: ["id"] } },
      meta: { type: "object", additionalProperties: { type: "string" } },
      tuple: { type: "array", items: [{ type: "string" }] },
    },
  });
  assert.equal(value, {
    type: "object",
    fields: {
      required: [],
      optional: [
        { name: "notes", type: "array", items: { type: "object", fields: { required: [{ name: "id", type: "string" }], optional: [] } } },
        { name: "meta", type: "object" },
        { name: "tuple", type: "array" },
      ],
    },
  });
});

test('nullable forms become their one non-null branch: ["x","null"], anyOf/oneOf with null', () => {
  assert.equal(jsonSchemaValue({ type: ["string", "null"] }), { type: "string" });
  assert.equal(jsonSchemaValue({ anyOf: [{ type: "integer" }, { type: "null" }], description: "maybe" }), { type: "integer", description: "maybe" });
  assert.equal(jsonSchemaValue({ oneOf: [{ type: "null" }, { type: "boolean" }] }), { type: "boolean" });
  assert.equal(jsonSchemaValue({ type: "string", enum: ["a", null] }), { type: "string", enum: ["a"] });
});

test("unions, mixed enums, multi-type and untyped schemas are any", () => {
  assert.equal(jsonSchemaValue({ anyOf: [{ type: "string" }, { type: "number" }] }), { type: "any" });
  assert.equal(jsonSchemaValue({ type: ["string", "number"] }), { type: "any" });
  assert.equal(jsonSchemaValue({ enum: ["a", 1] }), { type: "any" });
  assert.equal(jsonSchemaValue({}), { type: "any" });
  assert.equal(jsonSchemaValue({ description: "anything" }), { type: "any", description: "anything" });
  assert.equal(jsonSchemaValue(true), { type: "any" });
});

test("local $ref to definitions or $defs resolves; a foreign or missing one is any; recursion stops at the depth bound", () => {
  const schema = {
    type: "object",
    properties: { a: { $ref: "#/definitions/Point" }, b: { $ref: "#/$defs/Name" }, c: { $ref: "https://x/s.json" }, d: { $ref: "#/definitions/Nope" } },
    definitions: { Point: { type: "object", properties: { x: { type: "number" } }, required: ["x"] } },
    $defs: { Name: { type: "string" } },
  };
  assert.equal(jsonSchemaFields(schema), {
    required: [],
    optional: [
      { name: "a", type: "object", fields: { required: [{ name: "x", type: "number" }], optional: [] } },
      { name: "b", type: "string" },
      { name: "c", type: "any" },
      { name: "d", type: "any" },
    ],
  });
  // A self-referencing tree: mapped down to the bound, then any, never endless.
  const tree = { $ref: "#/definitions/Node", definitions: { Node: { type: "object", properties: { child: { $ref: "#/definitions/Node" } } } } };
  let value = jsonSchemaValue(tree);
  let depth = 0;
  while (value.type === "object") {
    value = value.fields!.optional![0]!;
    depth++;
  }
  assert.equal(value.type, "any");
  assert.ok(depth > 1 && depth <= JSON_SCHEMA_MAX_DEPTH, String(depth));
});

test("property names that cannot be field names make the object free-form; a top level that is not an object has no fields", () => {
  assert.equal(jsonSchemaValue({ type: "object", properties: { "first-name": { type: "string" } } }), { type: "object" });
  assert.equal(jsonSchemaValue({ type: "object", properties: { constructor: { type: "string" } } }), { type: "object" });
  assert.equal(jsonSchemaFields({ type: "string" }), undefined);
  assert.equal(jsonSchemaFields({ type: "object" }), undefined);
  assert.equal(jsonSchemaFields({ type: "object", properties: {} }), { required: [], optional: [] });
});

test("tool names become capability names by the snake_case rule", () => {
  assert.equal(capabilityNameOf("search-notes"), "search_notes");
  assert.equal(capabilityNameOf("getWeather"), "get_weather");
  assert.equal(capabilityNameOf("Files.Read"), "files_read");
  assert.equal(capabilityNameOf("2fa"), "tool_2fa");
  assert.equal(capabilityNameOf("--"), "tool");
});

test.run();
