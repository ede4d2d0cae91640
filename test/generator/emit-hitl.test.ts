/**
 * The spec and gen side of human approval: an agent's `hitl:` block is served (no MF1315), normalised
 * into its AgentSpec with every default explicit, and documented in its OpenAPI (the five `/hitl`
 * paths, their schemas, and the 202 a paused run answers on the orchestration routes).
 */
import { Validator } from "@seriousme/openapi-schema-validator";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { AGENT_FEATURES, AGENT_ROUTE_PREFIXES, agentOpenApi } from "../../runtime/agent/features.js";
import { DEFAULT_HITL_EXPIRY_MS } from "../../runtime/hitl/index.js";
import { loadManifestText, loadSources, notGenerated } from "../support/manifests.js";
import { buildOpenApi, type ComponentSpec } from "../../runtime/spec/index.js";
import { GEOCODING_TOOL, TRAVEL_AGENT, TRAVEL_WORKFLOW, WEATHER_TOOL } from "./load-helpers.js";

const AGENT = "kind: agent\nname: a\ndescription: d\n";

function agentSpec(text: string): ComponentSpec {
  const project = loadManifestText("m/a.yaml", text);
  assert.equal(project.diagnostics, []);
  return project.manifests[0]!.component!;
}

function travel(text = TRAVEL_AGENT): ComponentSpec {
  const project = loadSources([
    { file: "m/agent.yaml", text },
    { file: "m/geo.yaml", text: GEOCODING_TOOL },
    { file: "m/weather.yaml", text: WEATHER_TOOL },
    { file: "m/wf.yaml", text: TRAVEL_WORKFLOW },
  ]);
  assert.equal(project.diagnostics, []);
  assert.equal(notGenerated(project), []);
  return project.manifests.find((m) => m.kind === "agent")!.component!;
}

const document = (spec: ComponentSpec, auth: "optional" | "none" = "optional") => buildOpenApi(spec, { additions: agentOpenApi(spec.agent), auth }) as any;

test("an agent with hitl: no MF1315, and its AgentSpec carries the block normalised (expiry in ms)", () => {
  const spec = travel();
  assert.equal(spec.agent?.hitl, {
    planApproval: false,
    sensitiveCapabilities: ["get_current_weather", "plan_trip"],
    expiryMs: 5 * 60_000,
    defaultAction: "reject",
  });
  assert.equal(agentSpec(`${AGENT}hitl: { plan_approval: true, expiry: 90s, default_action: approve }\n`).agent?.hitl, {
    planApproval: true,
    sensitiveCapabilities: [],
    expiryMs: 90_000,
    defaultAction: "approve",
  });
});

test("hitl defaults: no plan approval, nothing sensitive, DEFAULT_HITL_EXPIRY_MS (five minutes, one constant for the normaliser and the runtime policy)", () => {
  assert.equal(agentSpec(`${AGENT}hitl: { default_action: reject }\n`).agent?.hitl, {
    planApproval: false,
    sensitiveCapabilities: [],
    expiryMs: DEFAULT_HITL_EXPIRY_MS,
    defaultAction: "reject",
  });
  assert.is(DEFAULT_HITL_EXPIRY_MS, 5 * 60_000);
});

test("an agent without hitl has no hitl key at all (specs stay byte-identical)", () => {
  const agent = agentSpec(`${AGENT}chat: true\n`).agent!;
  assert.not.ok("hitl" in agent);
  assert.ok(JSON.stringify(agent).indexOf("hitl") === -1);
});

test("the hitl feature: in the list, owns /hitl, takes the hitl serve option, no pending key", () => {
  const hitl = AGENT_FEATURES.find((feature) => feature.key === "hitl");
  assert.ok(hitl, "hitl is in the feature list");
  assert.equal(hitl.routePrefixes, ["/hitl"]);
  assert.equal(hitl.optionKeys, ["hitl"]);
  assert.is(hitl.pending, undefined);
  assert.is(typeof hitl.build, "function");
  assert.ok(AGENT_ROUTE_PREFIXES.includes("/hitl"));
  assert.equal(
    AGENT_FEATURES.flatMap((f) => f.pending ?? []),
    [],
  );
});

test("a capability endpoint under /hitl is MF1306 on an agent", () => {
  const project = loadManifestText("m/a.yaml", `${AGENT}capabilities:\n  - { name: x, description: d, endpoint: /hitl/x }\n`);
  assert.equal(
    project.diagnostics.map((d) => d.code),
    ["MF1306"],
  );
});

test("OpenAPI with hitl: the five /hitl operations, their schemas, the hitl tag, and 202 Interrupted on every orchestration route", async () => {
  const doc = document(travel());
  assert.ok((await new Validator().validate(doc)).valid);
  const hitlPaths = Object.keys(doc.paths).filter((p) => p.startsWith("/hitl"));
  assert.equal(
    hitlPaths.map((p) => [p, Object.keys(doc.paths[p]), (Object.values(doc.paths[p])[0] as any).operationId]),
    [
      ["/hitl/command", ["post"], "hitlCommand"],
      ["/hitl/resume/{checkpoint_id}", ["post"], "hitlResume"],
      ["/hitl/auto-resume/{checkpoint_id}/stream", ["get"], "hitlResumeStream"],
      ["/hitl/checkpoints", ["get"], "listCheckpoints"],
      ["/hitl/checkpoints/{checkpoint_id}", ["get"], "getCheckpoint"],
    ],
  );
  for (const p of hitlPaths) for (const op of Object.values(doc.paths[p]) as any[]) assert.equal(op.tags, ["hitl"]);
  assert.equal(
    doc.tags.find((t: any) => t.name === "hitl"),
    { name: "hitl", description: "Human approval: checkpoints, approve or reject, resume" },
  );

  const { schemas } = doc.components;
  for (const name of ["Checkpoint", "Interrupted", "HitlCommand", "CheckpointPage", "ErrorEnvelope"]) assert.ok(schemas[name], name);
  assert.equal(schemas.HitlCommand.required, ["checkpoint_id", "action"]);
  assert.is(schemas.HitlCommand.additionalProperties, false);
  assert.is(schemas.Checkpoint.properties.checkpoint_id.pattern, "^cp-[0-9a-f]{32}$");
  assert.equal(schemas.Interrupted.properties.checkpoint, { $ref: "#/components/schemas/Checkpoint" });

  const command = doc.paths["/hitl/command"].post.responses;
  assert.equal(Object.keys(command), ["200", "400", "401", "404", "409"]);
  assert.equal(Object.keys(doc.paths["/hitl/resume/{checkpoint_id}"].post.responses), ["200", "202", "401", "404", "409", "502"]);
  assert.ok(doc.paths["/hitl/auto-resume/{checkpoint_id}/stream"].get.responses["200"].content["text/event-stream"]);
  const list = doc.paths["/hitl/checkpoints"].get;
  assert.equal(
    list.parameters.map((p: any) => [p.name, p.in]),
    [
      ["status", "query"],
      ["type", "query"],
      ["limit", "query"],
      ["cursor", "query"],
    ],
  );
  assert.equal([list.parameters[2].schema.minimum, list.parameters[2].schema.maximum], [1, 100]);

  const orchestration = Object.keys(doc.paths).filter((p) => p.startsWith("/orchestrate/"));
  assert.equal(orchestration.sort(), ["/orchestrate/custom", "/orchestrate/natural", "/orchestrate/travel-research"]);
  for (const p of orchestration) {
    const responses = doc.paths[p].post.responses;
    assert.equal(responses["202"], {
      description: "Paused for human approval",
      content: { "application/json": { schema: { $ref: "#/components/schemas/Interrupted" } } },
    });
    const codes = Object.keys(responses);
    assert.equal(codes, [...codes].sort(), `${p}: responses in order`);
  }
  // Without a bearer check the responses are not re-sorted by the auth step: still in order.
  const open = document(travel(), "none");
  const codes = Object.keys(open.paths["/orchestrate/custom"].post.responses);
  assert.equal(codes, ["200", "202", "400"]);
});

test("OpenAPI without hitl: no /hitl path, no hitl schema or tag, no 202 on orchestration routes", () => {
  const doc = document(travel(TRAVEL_AGENT.replace(/^hitl:\n(?: {2}.*\n)+/m, "")));
  assert.equal(
    Object.keys(doc.paths).filter((p) => p.startsWith("/hitl")),
    [],
  );
  for (const name of ["Checkpoint", "Interrupted", "HitlCommand", "CheckpointPage"]) assert.is(doc.components.schemas[name], undefined, name);
  assert.not.ok(doc.tags.some((t: any) => t.name === "hitl"));
  for (const [p, item] of Object.entries(doc.paths) as [string, any][]) if (p.startsWith("/orchestrate/")) assert.is(item.post.responses["202"], undefined, p);
});

test("the OpenAPI additions are byte-stable: two builds, the same text", () => {
  assert.is(JSON.stringify(document(travel())), JSON.stringify(document(travel())));
});

test.run();
