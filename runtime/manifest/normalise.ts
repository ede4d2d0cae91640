/**
 * Manifest → ComponentSpec. Defaults are filled in here, once, so generated code and the runtime see
 * the same explicit values. Property order is fixed because the spec is embedded in generated files.
 */
import { DEFAULT_HITL_EXPIRY_MS, toCamelCase, workflowInputFields } from "../spec/index.js";
import { parseDuration } from "../spec/index.js";
import type { AgentSpec, CapabilitySpec, ComponentSpec, FieldSpec, FieldsSpec, HitlSpec, TaskTypeSpec, ValueSpec, WorkflowSpec } from "../spec/index.js";
import type { RawCapability, RawComponent, RawField, RawFields, RawTask, RawValue } from "./manifest-types.js";

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
    endpoint: raw.endpoint ?? defaultEndpoint(raw.name),
    ...(raw.input !== undefined && { input: normaliseFields(raw.input) }),
    ...(raw.output !== undefined && { output: normaliseFields(raw.output) }),
  };
}

/**
 * `workflows`: the checked workflow specs by name, when the manifest is loaded with the others (gen);
 * undefined for a manifest on its own, whose agent then serves no workflow endpoints.
 */
export function normaliseComponent(raw: RawComponent, workflows?: ReadonlyMap<string, WorkflowSpec>): ComponentSpec {
  return {
    kind: raw.kind,
    name: raw.name,
    description: raw.description,
    version: raw.version ?? DEFAULT_VERSION,
    ...(raw.port !== undefined && { port: raw.port }),
    capabilities: (raw.capabilities ?? []).map(normaliseCapability),
    ...(raw.kind === "agent" && { agent: normaliseAgent(raw, workflows ?? new Map()) }),
  };
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function normaliseAgent(raw: RawComponent, workflows: ReadonlyMap<string, WorkflowSpec>): AgentSpec {
  const served = raw.orchestration?.workflows ?? [];
  const run = (raw.tasks ?? []).flatMap((t) => (t.workflow === undefined ? [] : [t.workflow]));
  // A name without a spec is one with errors (gen stops) or one not resolvable on its own.
  const known = (name: string): boolean => workflows.has(name);
  const natural = raw.orchestration?.natural;
  return {
    uses: [...(raw.uses ?? [])].sort(compareText),
    orchestration: {
      ...(natural !== undefined && { natural: { model: natural.model } }),
      custom: raw.orchestration?.custom ?? false,
      workflows: [...new Set([...served, ...run])]
        .filter(known)
        .sort(compareText)
        .map((name) => workflows.get(name)!),
      endpoints: served.filter(known).sort(compareText),
    },
    tasks: (raw.tasks ?? []).map((task) => normaliseTask(task, task.workflow === undefined ? undefined : workflows.get(task.workflow))),
    ...(raw.scheduled === true && { scheduled: true }),
    ...(raw.chat === true && { chat: true }),
    ...(raw.hitl !== undefined && { hitl: normaliseHitl(raw.hitl) }),
  };
}

/**
 * The `hitl:` block with every default explicit. An `expiry` that is not a duration in range is
 * MF1418 (gen stops), so the fallback only keeps a spec of a manifest with errors well-formed.
 */
function normaliseHitl(raw: NonNullable<RawComponent["hitl"]>): HitlSpec {
  return {
    planApproval: raw.plan_approval ?? false,
    sensitiveCapabilities: [...(raw.sensitive_capabilities ?? [])],
    expiryMs: (raw.expiry === undefined ? undefined : parseDuration(raw.expiry)) ?? DEFAULT_HITL_EXPIRY_MS,
    defaultAction: raw.default_action ?? "reject",
  };
}

/**
 * A workflow task takes the workflow's inputs and returns its outputs. Its `output` is left out (any
 * object) when some output's type cannot be inferred: a FieldSpec needs a type, and claiming one the
 * checker does not know would make a typed client lie.
 */
function normaliseTask(raw: RawTask, workflow: WorkflowSpec | undefined): TaskTypeSpec {
  const timeoutMs = raw.timeout === undefined ? undefined : parseDuration(raw.timeout);
  const input = workflow === undefined ? raw.input && normaliseFields(raw.input) : workflowInputFields(workflow);
  const output = workflow === undefined ? raw.output && normaliseFields(raw.output) : workflowOutputFields(workflow);
  return {
    type: raw.type,
    key: toCamelCase(raw.type),
    ...(raw.description !== undefined && { description: raw.description }),
    ...(raw.workflow !== undefined && { workflow: raw.workflow }),
    ...(timeoutMs !== undefined && { timeoutMs }),
    ...(input !== undefined && { input }),
    ...(output !== undefined && { output }),
  };
}

function workflowOutputFields(workflow: WorkflowSpec): FieldsSpec | undefined {
  const typed = workflow.outputs.flatMap((o) => (o.type === undefined ? [] : [{ name: o.name, required: o.required, field: { name: o.name, ...o.type } }]));
  if (typed.length < workflow.outputs.length) return undefined;
  return { required: typed.filter((o) => o.required).map((o) => o.field), optional: typed.filter((o) => !o.required).map((o) => o.field) };
}
