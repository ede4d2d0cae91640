/** Shared by the load-*.test.ts suites: compact views of diagnostics, and temp folders of manifests. */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { Project } from "../../runtime/manifest/project.js";

/** `[code, line, column]` per diagnostic: what most tests assert. */
export function where(project: Pick<Project, "diagnostics">): [string, number, number][] {
  return project.diagnostics.map((d) => [d.code, d.line, d.column]);
}

/** The only diagnostic, or a failure listing all of them. */
export function single(project: Pick<Project, "diagnostics">): Project["diagnostics"][number] {
  if (project.diagnostics.length !== 1) throw new Error(`expected one diagnostic, got:\n${JSON.stringify(project.diagnostics, null, 2)}`);
  return project.diagnostics[0]!;
}

/** A temp folder holding `files` (path → content), removed by the returned `cleanup`. */
export async function tempProject(files: Readonly<Record<string, string | Uint8Array>>): Promise<{ root: string; cleanup: () => Promise<void> }> {
  const root = await mkdtemp(join(tmpdir(), "manifold-load-"));
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), content);
  }
  return { root, cleanup: () => rm(root, { recursive: true, force: true }) };
}

export const WEATHER_TOOL = `# yaml-language-server: $schema=../manifest.schema.json
kind: tool
name: weather-service
description: Current weather and forecasts
version: 2.1.0
port: 8096
capabilities:
  - name: get_current_weather
    description: Current conditions at a coordinate
    type: tool
    internal: false
    endpoint: /api/capabilities/get_current_weather
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
        - name: wind
          type: object
          fields:
            required:
              - { name: speed, type: number, example: 3.5 }
            optional:
              - { name: gusts, type: array, items: { type: integer }, example: [4, 7] }
  - name: warm_cache
    description: Reloads the tables
    type: reasoning
    internal: true
`;

export const GEOCODING_TOOL = `kind: tool
name: geocoding-service
description: Place names to coordinates
capabilities:
  - name: geocode_location
    description: Coordinates of a place
    input:
      required:
        - { name: location, type: string }
    output:
      required:
        - { name: lat, type: number }
        - { name: lon, type: number }
`;

export const TRAVEL_AGENT = `kind: agent
name: travel-agent
description: Plans trips
port: 8094
uses: [geocoding-service, weather-service]
capabilities:
  - name: plan_trip
    description: A trip plan
    type: orchestrator
    input:
      required:
        - { name: destination, type: string }
orchestration:
  natural: { model: gpt-4o-mini }
  custom: true
  workflows: [travel-research]
tasks:
  - { type: research, workflow: travel-research, timeout: 10m }
  - type: summarise
    description: Summarise notes
    timeout: 90s
    input:
      required:
        - { name: notes, type: string }
    output:
      required:
        - { name: summary, type: string }
scheduled: true
chat: true
hitl:
  plan_approval: false
  sensitive_capabilities: [get_current_weather, plan_trip]
  expiry: 5m
  default_action: reject
`;

export const TRAVEL_WORKFLOW = `kind: workflow
name: travel-research
version: "1.0"
description: Weather at a destination
inputs:
  destination: { type: string, required: true }
  amount: { type: number }
steps:
  - name: geocode
    tool: geocoding-service
    action: geocode_location
    inputs: { location: "\${inputs.destination}" }
  - name: weather
    tool: weather-service
    action: get_current_weather
    depends_on: [geocode]
    timeout: 30s
    retry: 2
    on_error: continue
    inputs: { lat: "\${steps.geocode.output.lat}", lon: "\${steps.geocode.output.lon}" }
outputs:
  temperature: "\${steps.weather.output.temperature}"
  headline: "It is \${steps.weather.output.condition} in \${inputs.destination}"
  budget: "\${inputs.amount}"
`;
