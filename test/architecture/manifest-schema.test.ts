/**
 * manifest.schema.json is assembled from the format's own part and each feature's fragment; the
 * committed file (what editors and the published package read) must be exactly that assembly.
 */
import { readFileSync } from "node:fs";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { manifestSchemaText } from "../../generator/manifest-schema.js";
import { AGENT_FEATURES } from "../../runtime/agent/index.js";
import { assembleManifestSchema, FORMAT_SCHEMA } from "../../runtime/manifest/index.js";

test("the committed manifest.schema.json equals the assembly of the format and the shipped features (npm run gen writes it)", () => {
  const committed = readFileSync(new URL("../../manifest.schema.json", import.meta.url), "utf8");
  assert.ok(committed === manifestSchemaText(), "manifest.schema.json differs from the assembled schema: run `npm run gen`");
});

test("each shipped feature's key is an agent property, in feature-list order after the format's own", () => {
  const agent = (schema: { definitions: Record<string, unknown> }) => Object.keys((schema.definitions["agent"] as { properties: object }).properties);
  const own = agent(FORMAT_SCHEMA);
  assert.equal(agent(assembleManifestSchema(AGENT_FEATURES)), [...own, ...AGENT_FEATURES.map((f) => f.key)]);
  assert.not.ok(
    own.some((key) => AGENT_FEATURES.some((f) => f.key === key)),
    "the format's own part names no feature key",
  );
});

test("two features cannot claim one key or one definition", () => {
  const one = { key: "x", schema: { property: { type: "boolean" } } };
  assert.throws(() => assembleManifestSchema([one, one]), /`x` is already part of the agent manifest/);
  assert.throws(() => assembleManifestSchema([{ key: "uses", schema: { property: {} } }]), /`uses` is already part/);
  const defining = (key: string) => ({ key, schema: { property: { $ref: "#/definitions/d" }, definitions: { d: { type: "object" } } } });
  assert.throws(() => assembleManifestSchema([defining("a"), defining("b")]), /definition `d` of feature `b` is already defined/);
  assert.throws(() => assembleManifestSchema([{ key: "a", schema: { property: {}, definitions: { field: {} } } }]), /definition `field`/);
});

test.run();
