/**
 * test/support/specs.ts: specs come out of the real manifest layer (defaults filled in as gen fills
 * them), and a manifest with errors is refused with its diagnostics rather than half-built.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { agent, agentSpec, specFromManifest, tool, toolSpec } from "../support/specs.js";

test("tool(): the YAML of a tiny tool, normalised as gen normalises it", () => {
  const yaml = tool("trip-tool", {
    capabilities: { plan_trip: { input: { destination: "string", "nights?": "integer" }, output: { summary: "string" } } },
  });
  assert.match(yaml, /^kind: tool\nname: trip-tool\n/);
  assert.equal(toolSpec(yaml), {
    kind: "tool",
    name: "trip-tool",
    description: "trip-tool (a test component)",
    version: "1.0.0",
    capabilities: [
      {
        name: "plan_trip",
        key: "planTrip",
        description: "plan_trip",
        type: "tool",
        internal: false,
        endpoint: "/api/capabilities/plan_trip",
        input: { required: [{ name: "destination", type: "string" }], optional: [{ name: "nights", type: "integer" }] },
        output: { required: [{ name: "summary", type: "string" }], optional: [] },
      },
    ],
  });
});

test("a field given as an object keeps its manifest keys (enum, example, items)", () => {
  const spec = toolSpec(tool("t", { capabilities: { go: { input: { mode: { type: "string", enum: ["a", "b"], example: "a" } } } } }));
  assert.equal(spec.capabilities[0]!.input!.required, [{ name: "mode", type: "string", example: "a", enum: ["a", "b"] }]);
});

test("agent(): an agent's spec carries the agent part a manifest always has", () => {
  const spec = agentSpec(agent("relay", { capabilities: { plan: { type: "orchestrator" } } }));
  assert.is(spec.kind, "agent");
  assert.is(spec.capabilities[0]!.type, "orchestrator");
  assert.ok(spec.agent !== undefined, "the normalised agent section");
});

test("a manifest with errors is refused, naming the diagnostic; the wrong kind too", () => {
  assert.throws(() => specFromManifest("kind: tool\nname: t\ndescription: d\ncolour: red\ncapabilities: []\n"), /MF1201/);
  assert.throws(() => toolSpec(agent("a", { capabilities: { x: {} } })), /expected a tool manifest, got kind agent/);
  assert.throws(() => agentSpec(tool("t", { capabilities: { x: {} } })), /expected an agent manifest, got kind tool/);
});

test.run();
