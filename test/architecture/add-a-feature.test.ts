/**
 * Adding an agent feature is its folder plus one entry in the feature list. The example feature in
 * test/fixtures/features/greeting/ (a manifest key with its schema fragment, spec type, normaliser
 * and check; a route prefix; an OpenAPI path; a serve option; a pending key) plugs in by exactly
 * that: `[...AGENT_FEATURES, greetingFeature]`. No file of the manifest layer, the agent or the
 * component changes, and the shipped list does not know it.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { AGENT_FEATURES, agentOpenApi, serveAgent } from "../../runtime/agent/index.js";
import { assembleManifestSchema, loadManifestText, loadSources, notGenerated } from "../../runtime/manifest/index.js";
import { buildOpenApi } from "../../runtime/spec/index.js";
import { greetingFeature } from "../fixtures/features/greeting/feature.js";

// The one list entry.
const FEATURES = [...AGENT_FEATURES, greetingFeature];

const agent = (extra: string) => `kind: agent
name: greeter
description: Greets
capabilities:
  - { name: wave, description: Waves }
${extra}`;

test("the manifest key is part of the format exactly when the feature is in the list", () => {
  const text = agent("greeting:\n  text: hello\n");
  assert.equal(loadManifestText("m/greeter.yaml", text, FEATURES).diagnostics, []);
  const without = loadManifestText("m/greeter.yaml", text, AGENT_FEATURES).diagnostics;
  assert.equal(
    without.map((d) => [d.code, d.line]),
    [["MF1201", 6]],
    "unknown key at the `greeting:` line",
  );
  const schema = assembleManifestSchema(FEATURES) as { definitions: Record<string, { properties?: Record<string, unknown> }> };
  assert.equal(schema.definitions["agent"]?.properties?.["greeting"], { $ref: "#/definitions/greeting" });
  assert.ok(schema.definitions["greeting"]);
});

test("its normaliser fills the agent spec; its schema fragment and its check report with positions", () => {
  const spec = loadManifestText("m/greeter.yaml", agent("greeting:\n  text: hello\n"), FEATURES).manifests[0]?.component;
  assert.equal(spec?.agent?.greeting, { text: "hello" });
  assert.is(loadManifestText("m/greeter.yaml", agent(""), FEATURES).manifests[0]?.component?.agent?.greeting, undefined);
  const missing = loadManifestText("m/greeter.yaml", agent("greeting: {}\n"), FEATURES).diagnostics;
  assert.equal(
    missing.map((d) => [d.code, d.line]),
    [["MF1202", 6]],
  );
  const blank = loadManifestText("m/greeter.yaml", agent('greeting:\n  text: "  "\n'), FEATURES).diagnostics;
  assert.equal(
    blank.map((d) => [d.code, d.line, d.message]),
    [["MF1205", 7, "`greeting.text` is only white space"]],
  );
});

test("its route prefix is reserved on agents (MF1306) and its pending key warns (MF1315)", () => {
  const taken = agent("").replace("{ name: wave, description: Waves }", "{ name: wave, description: Waves, endpoint: /greeting/wave }");
  assert.equal(
    loadManifestText("m/greeter.yaml", taken, FEATURES).diagnostics.map((d) => d.code),
    ["MF1306"],
  );
  assert.equal(loadManifestText("m/greeter.yaml", taken, AGENT_FEATURES).diagnostics, [], "the shipped list reserves no /greeting");
  const project = loadSources([{ file: "m/greeter.yaml", text: agent("greeting:\n  text: hello\n  loud: true\n") }], FEATURES);
  assert.equal(
    notGenerated(project, FEATURES).map((d) => [d.code, d.line, d.message]),
    [["MF1315", 8, "`greeting.loud` is valid, but manifold v0.1.0 does not generate loud greetings yet"]],
  );
});

test("served: its route answers, its serve option reaches its build, its path is in the OpenAPI document", async () => {
  const spec = loadManifestText("m/greeter.yaml", agent("greeting:\n  text: hello\n"), FEATURES).manifests[0]!.component!;
  const emitted = buildOpenApi(spec, { additions: agentOpenApi(spec.agent, FEATURES) }) as { paths: Record<string, unknown> };
  assert.ok(emitted.paths["/greeting"], "the emitted document has GET /greeting");
  const running = await serveAgent(
    spec,
    [],
    {
      port: 0,
      registry: false,
      handleSignals: false,
      log: () => {},
      handlers: { wave: async () => ({}) },
      enableOpenApi: true,
      greeting: { punctuation: "!" },
    } as never,
    FEATURES,
  );
  try {
    const greeting = await fetch(`${running.url}/greeting`);
    assert.is(greeting.status, 200);
    assert.equal(await greeting.json(), { text: "hello!" });
    const live = (await (await fetch(`${running.url}/openapi.json`)).json()) as { paths: Record<string, unknown> };
    assert.ok(live.paths["/greeting"], "the live /openapi.json has GET /greeting");
  } finally {
    await running.close();
  }
});

test("the shipped agent does not serve it", async () => {
  const spec = loadManifestText("m/greeter.yaml", agent(""), AGENT_FEATURES).manifests[0]!.component!;
  const running = await serveAgent(spec, [], { port: 0, registry: false, handleSignals: false, log: () => {}, handlers: { wave: async () => ({}) } } as never);
  try {
    assert.is((await fetch(`${running.url}/greeting`)).status, 404);
  } finally {
    await running.close();
  }
});

test.run();
