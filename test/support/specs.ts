/**
 * ComponentSpecs for tests, made the way `manifold gen` makes them: from a YAML manifest, through the
 * real manifest layer (parse, schema, semantic checks, normalise). A hand-written spec literal can
 * hold what no manifest produces (a missing default, a key the normaliser would spell differently);
 * one built here cannot, and it follows the manifest format as that changes.
 *
 *     const spec = toolSpec(tool("trip-tool", { capabilities: { plan_trip: { input: { destination: "string", "nights?": "integer" } } } }));
 *     const agent = specFromManifest(readFileSync("manifests/travel/travel-agent.yaml", "utf8"));
 *
 * `tool()` / `agent()` write the YAML of the common tiny component; anything richer is written as
 * YAML text in the test, which is what a reader compares with the manifest documentation anyway.
 */
import { stringify } from "yaml";
import { formatDiagnostics, hasErrors } from "../../runtime/manifest/index.js";
import type { ComponentSpec } from "../../runtime/spec/index.js";
import { loadManifestText } from "./manifests.js";

/** A field's type name (`string`, `integer`, `number`, `boolean`, `object`, `array`), or the manifest's field object without its name. */
export type FieldShape = string | Readonly<Record<string, unknown>>;

/** Field name → shape; a name ending in `?` is optional. */
export type FieldsShape = Readonly<Record<string, FieldShape>>;

export interface CapabilityShape {
  /** @defaultValue the capability's name */
  readonly description?: string;
  readonly type?: "tool" | "reasoning" | "orchestrator";
  readonly internal?: boolean;
  readonly input?: FieldsShape;
  readonly output?: FieldsShape;
}

export interface ComponentShape {
  /** @defaultValue "<name> (a test component)" */
  readonly description?: string;
  readonly version?: string;
  /** Capability name → shape. */
  readonly capabilities: Readonly<Record<string, CapabilityShape>>;
  /** More top-level manifest keys, as the manifest spells them (`port`, `uses`, `orchestration`, …). */
  readonly more?: Readonly<Record<string, unknown>>;
}

function fields(shape: FieldsShape): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (const [key, value] of Object.entries(shape)) {
    const optional = key.endsWith("?");
    const name = optional ? key.slice(0, -1) : key;
    const field = typeof value === "string" ? { name, type: value } : { name, ...value };
    (out[optional ? "optional" : "required"] ??= []).push(field);
  }
  return out;
}

function capability(name: string, shape: CapabilityShape): Record<string, unknown> {
  return {
    name,
    description: shape.description ?? name,
    ...(shape.type !== undefined && { type: shape.type }),
    ...(shape.internal !== undefined && { internal: shape.internal }),
    ...(shape.input !== undefined && { input: fields(shape.input) }),
    ...(shape.output !== undefined && { output: fields(shape.output) }),
  };
}

function manifest(kind: "tool" | "agent", name: string, shape: ComponentShape): string {
  return stringify({
    kind,
    name,
    description: shape.description ?? `${name} (a test component)`,
    ...(shape.version !== undefined && { version: shape.version }),
    ...shape.more,
    capabilities: Object.entries(shape.capabilities).map(([capabilityName, c]) => capability(capabilityName, c)),
  });
}

/** The YAML manifest of a tool. */
export function tool(name: string, shape: ComponentShape): string {
  return manifest("tool", name, shape);
}

/** The YAML manifest of an agent (its features as `more` keys). */
export function agent(name: string, shape: ComponentShape): string {
  return manifest("agent", name, shape);
}

/**
 * The normalised spec of one tool or agent manifest, loaded on its own (an agent's workflows need the
 * other manifests, so they are not resolved). Throws with the formatted diagnostics if it has errors.
 */
export function specFromManifest(yaml: string, file = "manifests/test-component.yaml"): ComponentSpec {
  const project = loadManifestText(file, yaml);
  if (hasErrors(project))
    throw new Error(
      `test manifest ${file} has errors:\n${formatDiagnostics(project.diagnostics, "pretty", { color: false, ...(project.sources !== undefined && { sources: project.sources }) })}`,
    );
  const component = project.manifests[0]?.component;
  if (component === undefined) throw new Error(`test manifest ${file} declares no tool or agent`);
  return component;
}

/** `specFromManifest` for a manifest that must be a tool. */
export function toolSpec(yaml: string, file?: string): ComponentSpec {
  const spec = specFromManifest(yaml, file);
  if (spec.kind !== "tool") throw new Error(`expected a tool manifest, got kind ${spec.kind}`);
  return spec;
}

/** `specFromManifest` for a manifest that must be an agent. */
export function agentSpec(yaml: string, file?: string): ComponentSpec {
  const spec = specFromManifest(yaml, file);
  if (spec.kind !== "agent") throw new Error(`expected an agent manifest, got kind ${spec.kind}`);
  return spec;
}
