/**
 * Manifest → ComponentSpec. Defaults are filled in here, once, so generated code and the runtime see
 * the same explicit values. Property order is fixed because the spec is embedded in generated files.
 */
import { toCamelCase } from "../spec/index.js";
import type { AgentSpec, CapabilitySpec, ComponentSpec, FieldSpec, FieldsSpec, ValueSpec, WorkflowSpec } from "../spec/index.js";
import { featureWorkflows, type ManifestFeature, type ManifestFiles, type RawAgent } from "./feature.js";
import { usedName, type RawCapability, type RawComponent, type RawField, type RawFields, type RawValue } from "./manifest-types.js";
import { compareText } from "./values.js";

export const DEFAULT_VERSION = "1.0.0";

export function defaultEndpoint(capabilityName: string): string {
  return `/api/capabilities/${capabilityName}`;
}

export function normaliseValue(raw: RawValue): ValueSpec {
  return {
    type: raw.type,
    ...(raw.description !== undefined && { description: raw.description }),
    ...(raw.example !== undefined && { example: raw.example }),
    ...(raw.enum !== undefined && { enum: [...raw.enum] }),
    ...(raw.items !== undefined && { items: normaliseValue(raw.items) }),
    ...(raw.fields !== undefined && { fields: normaliseFields(raw.fields) }),
    ...(raw.max_length !== undefined && { maxLength: raw.max_length }),
  };
}

function normaliseField(raw: RawField): FieldSpec {
  return { name: raw.name, ...normaliseValue(raw) };
}

export function normaliseFields(raw: RawFields): FieldsSpec {
  return { required: (raw.required ?? []).map(normaliseField), optional: (raw.optional ?? []).map(normaliseField) };
}

function normaliseCapability(raw: RawCapability): CapabilitySpec {
  return {
    name: raw.name,
    key: toCamelCase(raw.name),
    description: raw.description,
    type: raw.type ?? "tool",
    internal: raw.internal ?? false,
    ...(raw.effects === "lasting" && { effects: "lasting" as const }),
    endpoint: raw.endpoint ?? defaultEndpoint(raw.name),
    ...(raw.input !== undefined && { input: normaliseFields(raw.input) }),
    ...(raw.output !== undefined && { output: normaliseFields(raw.output) }),
  };
}

/** The capabilities of a component with their defaults: what the data-flow checker sees of it. */
export function normaliseCapabilities(raw: RawComponent): CapabilitySpec[] {
  return (raw.capabilities ?? []).map(normaliseCapability);
}

/**
 * `workflows`: the checked workflow specs by name, when the manifest is loaded with the others (gen);
 * undefined for a manifest on its own, whose agent then serves no workflow endpoints. An agent's spec
 * is its `uses` followed by each feature's part, in feature-list order (the spec is embedded in
 * generated files, so its property order is part of the output). `origin`: the manifest's file and
 * the files beside it, for features whose part embeds files it names (skill folders).
 */
export function normaliseComponent(
  raw: RawComponent,
  features: readonly ManifestFeature[],
  workflows?: ReadonlyMap<string, WorkflowSpec>,
  origin: ManifestOrigin = { file: "", files: undefined },
): ComponentSpec {
  return {
    kind: raw.kind,
    name: raw.name,
    description: raw.description,
    version: raw.version ?? DEFAULT_VERSION,
    ...(raw.port !== undefined && { port: raw.port }),
    ...(raw.mcp !== undefined && { mcp: raw.mcp }),
    capabilities: normaliseCapabilities(raw),
    ...(raw.kind === "agent" && { agent: normaliseAgent(raw as RawAgent, features, workflows ?? new Map(), origin) }),
  };
}

/** Where a manifest was read from: its file (relative to the cwd) and the files beside it, when known. */
export interface ManifestOrigin {
  readonly file: string;
  readonly files: ManifestFiles | undefined;
}

function normaliseAgent(raw: RawAgent, features: readonly ManifestFeature[], workflows: ReadonlyMap<string, WorkflowSpec>, origin: ManifestOrigin): AgentSpec {
  const referenced = [...new Set(featureWorkflows(raw, features).map((reference) => reference.name))];
  const context = { workflows, referenced, file: origin.file, files: origin.files };
  const parts = features.map((feature) => feature.normalise(raw, context));
  // Each feature's normaliser produces exactly its declared part; their union is the assembled spec.
  return Object.assign({ uses: (raw.uses ?? []).map(usedName).sort(compareText), ...plannerCapabilities(raw) }, ...parts) as AgentSpec;
}

/** `plannerCapabilities` from the `uses` entries that limit the planner; nothing when none does. */
function plannerCapabilities(raw: RawAgent): Pick<AgentSpec, "plannerCapabilities"> {
  const limited = (raw.uses ?? []).flatMap((use) =>
    typeof use === "string" || use.planner === undefined || use.planner === true
      ? []
      : [[use.name, use.planner === false ? [] : [...use.planner].sort(compareText)] as const],
  );
  if (limited.length === 0) return {};
  return { plannerCapabilities: Object.fromEntries([...limited].sort((a, b) => compareText(a[0], b[0]))) };
}

/** A workflow's typed outputs as fields, or undefined when some output's type cannot be inferred. */
export function workflowOutputFields(workflow: WorkflowSpec): FieldsSpec | undefined {
  const typed = workflow.outputs.flatMap((o) => (o.type === undefined ? [] : [{ name: o.name, required: o.required, field: { name: o.name, ...o.type } }]));
  if (typed.length < workflow.outputs.length) return undefined;
  return { required: typed.filter((o) => o.required).map((o) => o.field), optional: typed.filter((o) => !o.required).map((o) => o.field) };
}
