/**
 * The live catalog keeps one wire object per spec capability: what is compiled from a capability's
 * schema (the binding check's and recovery's validators, keyed by that object) is compiled once for
 * the process, not once per natural request.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { readCatalog } from "../../runtime/orchestration/index.js";
import { sameCatalog } from "../../runtime/orchestration/natural/plan-check.js";
import { capability } from "./support.js";

test("reading the catalog twice hands out the same capability objects for the same specs", async () => {
  const spec = {
    kind: "tool" as const,
    name: "adder",
    description: "adds",
    version: "1.0.0",
    capabilities: [capability("add", { required: [{ name: "a", type: "number" as const }], optional: [] })],
  };
  const [first] = await readCatalog(false, [spec]);
  const [second] = await readCatalog(false, [spec]);
  assert.ok(first!.capabilities[0] === second!.capabilities[0], "one wire object per spec capability");
  assert.equal(
    first!.capabilities[0]!.input_summary?.required_fields.map((f) => f.name),
    ["a"],
  );
});

test("the plan check's checker is kept while the catalog is the same objects, and rebuilt when a capability changes", async () => {
  const spec = (name: string) => ({
    kind: "tool" as const,
    name,
    description: "adds",
    version: "1.0.0",
    capabilities: [capability("add", { required: [{ name: "a", type: "number" as const }], optional: [] })],
  });
  const adder = spec("adder");
  assert.ok(sameCatalog(await readCatalog(false, [adder]), await readCatalog(false, [adder])), "two reads of the same specs");
  assert.not.ok(sameCatalog(await readCatalog(false, [adder]), await readCatalog(false, [spec("adder")])), "a new spec object is a new catalog");
  assert.not.ok(sameCatalog(await readCatalog(false, [adder]), await readCatalog(false, [adder, spec("other")])), "one more component");
});

test.run();
