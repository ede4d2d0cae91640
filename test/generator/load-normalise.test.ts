import { test } from "uvu";
import * as assert from "uvu/assert";
import { loadManifestText } from "../support/manifests.js";
import type { ComponentSpec } from "../../runtime/spec/types.js";
import { WEATHER_TOOL } from "./load-helpers.js";

test("a tool normalises to the expected ComponentSpec", () => {
  const expected: ComponentSpec = {
    kind: "tool",
    name: "weather-service",
    description: "Current weather and forecasts",
    version: "2.1.0",
    port: 8096,
    capabilities: [
      {
        name: "get_current_weather",
        key: "getCurrentWeather",
        description: "Current conditions at a coordinate",
        type: "tool",
        internal: false,
        endpoint: "/api/capabilities/get_current_weather",
        input: {
          required: [
            { name: "lat", type: "number", description: "Latitude", example: 48.85 },
            { name: "lon", type: "number", example: 2.35 },
          ],
          optional: [{ name: "units", type: "string", example: "metric", enum: ["metric", "imperial"] }],
        },
        output: {
          required: [
            { name: "temperature", type: "number" },
            { name: "condition", type: "string" },
            {
              name: "wind",
              type: "object",
              fields: {
                required: [{ name: "speed", type: "number", example: 3.5 }],
                optional: [{ name: "gusts", type: "array", example: [4, 7], items: { type: "integer" } }],
              },
            },
          ],
          optional: [],
        },
      },
      { name: "warm_cache", key: "warmCache", description: "Reloads the tables", type: "reasoning", internal: true, endpoint: "/api/capabilities/warm_cache" },
    ],
  };
  const project = loadManifestText("weather.yaml", WEATHER_TOOL);
  assert.equal(project.diagnostics, []);
  assert.equal(project.manifests[0]?.component, expected);
});

test("defaults: version 1.0.0, type tool, internal false, default endpoint, no port, no input/output", () => {
  const project = loadManifestText("t.yaml", "kind: tool\nname: t\ndescription: d\ncapabilities:\n  - { name: do_it, description: x, input: {} }\n");
  assert.equal(project.manifests[0]?.component, {
    kind: "tool",
    name: "t",
    description: "d",
    version: "1.0.0",
    capabilities: [
      {
        name: "do_it",
        key: "doIt",
        description: "x",
        type: "tool",
        internal: false,
        endpoint: "/api/capabilities/do_it",
        input: { required: [], optional: [] },
      },
    ],
  });
  assert.not.ok("output" in (project.manifests[0]?.component?.capabilities[0] ?? {}));
  assert.not.ok("port" in (project.manifests[0]?.component ?? {}));
});

test("property order is stable whatever order the manifest uses", () => {
  const text = `kind: tool
name: t
description: d
capabilities:
  - endpoint: /x
    internal: true
    description: x
    name: do_it
    output:
      optional:
        - { fields: { optional: [{ type: string, name: b }] }, example: {}, type: object, description: o, name: a }
        - { items: { example: 1, type: integer, enum: [1, 2] }, name: c, type: array }
`;
  const capability = loadManifestText("t.yaml", text).manifests[0]?.component?.capabilities[0];
  assert.equal(Object.keys(capability ?? {}), ["name", "key", "description", "type", "internal", "endpoint", "output"]);
  const [a, c] = capability?.output?.optional ?? [];
  assert.equal(Object.keys(a ?? {}), ["name", "type", "description", "example", "fields"]);
  assert.equal(Object.keys(c?.items ?? {}), ["type", "example", "enum"]);
  assert.equal(Object.keys(c ?? {}), ["name", "type", "items"]);
});

test("an agent without capabilities has an empty list", () => {
  const project = loadManifestText("a.yaml", "kind: agent\nname: a\ndescription: d\n");
  assert.equal(project.diagnostics, []);
  assert.equal(project.manifests[0]?.component?.capabilities, []);
  assert.is(project.manifests[0]?.component?.kind, "agent");
});

test.run();
