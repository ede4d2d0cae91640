/**
 * The meta-schema validator precompiled by `npm run gen` (runtime/manifest/meta-schema-validator.ts):
 * current with the assembled schema, used for the shipped feature list, and reporting exactly the
 * errors ajv's own compile reports, so diagnostics do not depend on which of the two ran.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { parse } from "yaml";
import { AGENT_FEATURES } from "../../runtime/agent/index.js";
import { assembleManifestSchema, createManifestAjv, manifestValidator } from "../../runtime/manifest/meta-schema.js";
import { validate as precompiled } from "../../runtime/manifest/meta-schema-validator.js";
import { manifestValidatorCode, VALIDATOR_MODULE } from "../../tools/manifest-validator-code.js";

test("the committed precompiled validator is the one the assembled schema compiles to (npm run gen writes it)", () => {
  assert.ok(readFileSync(VALIDATOR_MODULE, "utf8") === manifestValidatorCode(), "meta-schema-validator.ts is stale: run `npm run gen`");
});

test("the shipped feature list is checked by the precompiled validator; another list is compiled from its own assembly", () => {
  assert.ok(manifestValidator(AGENT_FEATURES) === precompiled);
  const without = AGENT_FEATURES.slice(1);
  const validate = manifestValidator(without);
  assert.ok(validate !== precompiled);
  const agent = { kind: "agent", name: "a", description: "d", [AGENT_FEATURES[0]!.key]: true };
  validate(agent);
  assert.ok(validate.errors?.some((e) => e.keyword === "additionalProperties" && e.params["additionalProperty"] === AGENT_FEATURES[0]!.key));
});

function manifests(dir: string): unknown[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return manifests(path);
    return /\.ya?ml$/.test(name) ? [parse(readFileSync(path, "utf8"))] : [];
  });
}

/** Each manifest broken in the ways users break them: a stray key, a wrong type, a bad value, a missing key. */
function broken(value: Record<string, unknown>): unknown[] {
  const { name: _name, ...withoutName } = value;
  return [
    value,
    { ...value, nmae: "x" },
    { ...value, name: 7 },
    { ...value, name: "Not A Name" },
    { ...value, kind: "tol" },
    withoutName,
    { ...value, capabilities: [{ name: "x", input: { required: [{ name: "a", type: "strng" }] } }] },
    { ...value, port: "eighty", description: ["a"] },
  ];
}

test("precompiled and freshly compiled validators report identical errors (keyword, place, params, schema, data)", () => {
  const compiled = createManifestAjv().compile(assembleManifestSchema(AGENT_FEATURES));
  const values = manifests(join(import.meta.dirname, "..", "..", "manifests")).filter((v): v is Record<string, unknown> => typeof v === "object" && v !== null);
  assert.ok(values.length >= 5, "the example manifests are found");
  let failing = 0;
  for (const value of values.flatMap(broken)) {
    const [a, b] = [precompiled(value), compiled(value)];
    assert.is(a, b);
    assert.equal(precompiled.errors ?? null, compiled.errors ?? null);
    if (!a) failing++;
  }
  assert.ok(failing >= values.length * 6, `the broken variants fail (${failing})`);
});

test.run();
