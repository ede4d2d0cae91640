import { test } from "uvu";
import * as assert from "uvu/assert";
import { Ajv } from "ajv";
import { DNS_LABEL } from "../../runtime/spec/index.js";
import { readFileSync } from "node:fs";
import { AGENT_FEATURES } from "../../runtime/agent/features.js";
import { manifestValidator, type ManifestSchema } from "../../runtime/manifest/index.js";
import { loadSources } from "../support/manifests.js";

// The published file (assembled from the format and the features' fragments; schema-assembly.test.ts holds it equal).
const MANIFEST_SCHEMA = JSON.parse(readFileSync(new URL("../../manifest.schema.json", import.meta.url), "utf8")) as ManifestSchema;

type Json = { [key: string]: unknown };
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

test("manifest.schema.json is a valid draft-07 schema with an $id and a title", () => {
  const ajv = new Ajv({ strict: false });
  assert.ok(ajv.validateSchema(MANIFEST_SCHEMA), JSON.stringify(ajv.errors));
  assert.is(MANIFEST_SCHEMA.$schema, "http://json-schema.org/draft-07/schema#");
  assert.type(MANIFEST_SCHEMA.$id, "string");
  assert.type(MANIFEST_SCHEMA.title, "string");
});

test("it is compiled once per process", () => {
  assert.is(manifestValidator(AGENT_FEATURES), manifestValidator(AGENT_FEATURES));
  // The format without features (workflows, the shipped scheduler tool): one compile, however `[]` is spelt.
  assert.is(manifestValidator([]), manifestValidator([]));
});

test("every object schema rejects unknown keys and every property has a description for editors", () => {
  const definitions: Json = MANIFEST_SCHEMA.definitions;
  const resolve = (s: Json): Json => {
    const ref = s["$ref"];
    return typeof ref === "string" ? resolve(definitions[ref.replace("#/definitions/", "")] as Json) : s;
  };
  const missing: string[] = [];
  let checked = 0;
  const visit = (schema: unknown, at: string): void => {
    if (Array.isArray(schema)) schema.forEach((s, i) => visit(s, `${at}/${i}`));
    if (!isObject(schema)) return;
    if (isObject(schema["properties"])) {
      for (const [key, sub] of Object.entries(schema["properties"])) {
        checked++;
        if (isObject(sub) && sub["description"] === undefined && resolve(sub)["description"] === undefined) missing.push(`${at}/${key}`);
      }
    }
    for (const [key, sub] of Object.entries(schema)) {
      // Conditions restate properties to test them; the documented ones are the properties above.
      if (key !== "if" && key !== "then" && key !== "else") visit(sub, `${at}/${key}`);
    }
  };
  visit(MANIFEST_SCHEMA, "#");
  assert.ok(checked > 50);
  assert.equal(missing, []);
  const open = Object.entries(definitions).filter(
    ([, d]) => isObject(d) && isObject(d["properties"]) && d["additionalProperties"] !== false && d["propertyNames"] === undefined,
  );
  assert.equal(
    open.map(([name]) => name),
    [],
  );
});

test("the examples in DESIGN.md §2 load without diagnostics", () => {
  // Verbatim from the design, with `capabilities: [...]` of the agent filled in.
  const tool = `kind: tool                     # tool | agent | workflow
name: weather-service
description: Current weather and forecasts
version: 1.0.0                 # optional, default 1.0.0
port: 8096                     # optional; PORT overrides at run time
capabilities:
  - name: get_current_weather
    description: Current conditions at a coordinate      # becomes the OpenAPI summary
    type: tool                 # tool | reasoning | orchestrator; default tool
    internal: false            # true: hidden from the planner only, tagged \`internal\` in OpenAPI
    endpoint: /api/capabilities/get_current_weather      # the default when unset
    input:
      required:
        - { name: lat, type: number, example: 48.85, description: Latitude }
        - { name: lon, type: number, example: 2.35 }
      optional:
        - { name: units, type: string, enum: [metric, imperial], example: metric }
    output:
      required:
        - { name: temperature, type: number }
        - { name: condition, type: string }
`;
  const agent = `kind: agent
name: travel-agent
description: Plans trips
port: 8094
uses: [geocoding-service, weather-service, currency-service]   # typed clients; must name manifests
capabilities: []
orchestration:
  natural: { model: gpt-4o-mini }   # POST /orchestrate/natural (needs an AI provider at run time)
  custom: true                      # POST /orchestrate/custom
  workflows: [travel-research]      # POST /orchestrate/travel-research
tasks:                         # POST /api/v1/tasks with these types
  - { type: research, workflow: travel-research, timeout: 10m }   # or handled by code: omit workflow, give input/output
scheduled: true                # exposes POST /api/v1/scheduled
chat: true                     # /chat/*, /query
hitl:
  plan_approval: false
  sensitive_capabilities: [convert_currency]
  expiry: 5m
  default_action: reject       # reject | approve
`;
  const workflow = `kind: workflow
name: travel-research
version: "1.0"
inputs:
  destination: { type: string, required: true }
  amount:      { type: number }
steps:
  - name: geocode
    tool: geocoding-service    # exactly one of tool | agent
    action: geocode_location   # a capability of that component
    inputs: { location: "\${inputs.destination}" }
  - name: weather
    tool: weather-service
    action: get_current_weather
    depends_on: [geocode]
    inputs: { lat: "\${steps.geocode.output.lat}", lon: "\${steps.geocode.output.lon}" }
outputs:
  temperature: "\${steps.weather.output.temperature}"
  headline: "It is \${steps.weather.output.condition} in \${inputs.destination}"
`;
  const other = (name: string, capability: string) => `kind: tool\nname: ${name}\ndescription: d\ncapabilities: [{ name: ${capability}, description: d }]\n`;
  const project = loadSources([
    { file: "tool.yaml", text: tool },
    { file: "agent.yaml", text: agent },
    { file: "workflow.yaml", text: workflow },
    { file: "geo.yaml", text: other("geocoding-service", "geocode_location") },
    { file: "currency.yaml", text: other("currency-service", "convert_currency") },
  ]);
  // The design's workflow declares `amount` and never uses it: the one finding is that warning.
  assert.equal(
    project.diagnostics.map((d) => [d.file, d.line, d.column, d.code]),
    [["workflow.yaml", 6, 3, "MF1412"]],
  );
});

test("the meta-schema's component-name pattern is the runtime's one DNS-label rule", () => {
  const definitions = (MANIFEST_SCHEMA as { definitions: Record<string, { pattern?: string }> }).definitions;
  assert.is(definitions["componentName"]?.pattern, DNS_LABEL.source);
});

test.run();
