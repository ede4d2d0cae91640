/**
 * The agent card (`/.well-known/agent-card.json`), built from the spec as the SDK's `AgentCard`: one
 * skill per non-internal capability and per served workflow, plus `natural` when natural mode is on.
 * Typed by the SDK, so a card the SDK would not accept does not compile; served as the SDK's own JSON
 * form of it (`AgentCard.toJSON`), which its client reads back.
 */
import type { AgentCard, AgentSkill, SecurityScheme } from "@a2a-js/sdk";
import type { AgentExtension } from "@a2a-js/sdk";
import { objectSchema, SKILL_SCHEMAS_EXTENSION, workflowInputFields, workflowOutputSchema } from "../spec/index.js";
import type { CapabilitySpec, ComponentSpec, FieldsSpec, JsonSchema, WorkflowSpec } from "../spec/index.js";

/** The skill id of natural mode. A workflow or capability of that name keeps it (theirs is the author's). */
export const NATURAL_SKILL = "natural";
/** The A2A protocol version this server speaks (the SDK's). */
export const A2A_PROTOCOL = "1.0";
export const A2A_CARD_PATH = "/.well-known/agent-card.json";
export const A2A_PATH = "/a2a";
/** The name of the bearer scheme in `securitySchemes`. */
const BEARER = "bearer";

const TEXT = "text/plain";
const DATA = "application/json";

/** What a skill runs: natural mode, one of the agent's served workflows, or one of its own capabilities. */
export type SkillTarget =
  | { readonly kind: "natural"; readonly id: string }
  | { readonly kind: "workflow"; readonly id: string; readonly workflow: WorkflowSpec }
  | { readonly kind: "capability"; readonly id: string; readonly capability: CapabilitySpec };

/**
 * The skills, by id: capabilities first (the author's names win, as with MCP tools), then the served
 * workflows, then natural mode.
 */
export function skillTargets(spec: ComponentSpec, natural: boolean): Map<string, SkillTarget> {
  const targets = new Map<string, SkillTarget>();
  for (const capability of spec.capabilities) if (!capability.internal) targets.set(capability.name, { kind: "capability", id: capability.name, capability });
  const workflows = new Map((spec.agent?.orchestration.workflows ?? []).map((w) => [w.name, w]));
  for (const name of spec.agent?.orchestration.endpoints ?? []) {
    const workflow = workflows.get(name);
    if (workflow !== undefined && !targets.has(name)) targets.set(name, { kind: "workflow", id: name, workflow });
  }
  if (natural && !targets.has(NATURAL_SKILL)) targets.set(NATURAL_SKILL, { kind: "natural", id: NATURAL_SKILL });
  return targets;
}

/** `{"lat": 48.8}` from the fields' `example`s; none when no field has one. */
function exampleOf(fields: readonly { readonly name: string; readonly example?: unknown }[]): string[] {
  const entries = fields.filter((field) => field.example !== undefined).map((field) => [field.name, field.example] as const);
  return entries.length === 0 ? [] : [JSON.stringify(Object.fromEntries(entries))];
}

const fieldsOf = (fields: FieldsSpec | undefined): FieldsSpec["required"] => fields?.required ?? [];

function skillOf(target: SkillTarget, agentName: string): AgentSkill {
  const base = { id: target.id, securityRequirements: [] };
  switch (target.kind) {
    case "natural":
      return {
        ...base,
        name: "Natural language",
        description: `Ask ${agentName} in natural language: it plans over the tools it can use, runs the checked plan and answers in prose.`,
        tags: ["natural"],
        examples: [],
        inputModes: [TEXT],
        outputModes: [TEXT, DATA],
      };
    case "workflow":
      return {
        ...base,
        name: target.workflow.name,
        description: target.workflow.description ?? `Runs workflow ${target.workflow.name}`,
        tags: ["workflow"],
        examples: exampleOf(target.workflow.inputs),
        inputModes: [DATA],
        outputModes: [DATA, TEXT],
      };
    case "capability":
      return {
        ...base,
        name: target.capability.name,
        description: target.capability.description,
        tags: ["capability", target.capability.type],
        examples: exampleOf(fieldsOf(target.capability.input)),
        inputModes: [DATA],
        outputModes: [DATA, TEXT],
      };
  }
}

/** What a workflow skill's artifact data is: the 200 body of `/orchestrate/<workflow>`, its `outputs` typed. */
function workflowResultSchema(workflow: WorkflowSpec): JsonSchema {
  return {
    type: "object",
    properties: {
      success: { type: "boolean" },
      plan_id: { type: "string" },
      workflow: { type: "string" },
      outputs: workflowOutputSchema(workflow, "draft-07"),
      response: { type: "string", description: "The language-model synthesis, when ai_synthesis was asked for" },
      steps: { type: "array", description: "Every step's result" },
      duration_ms: { type: "number" },
    },
    required: ["success", "plan_id", "workflow", "outputs", "steps", "duration_ms"],
  };
}

const anyObject: JsonSchema = { type: "object" };

/** A skill's input (its first data part) and output (its artifact's data part), for callers that type them. */
function schemasOf(target: SkillTarget): { input_schema: JsonSchema; output_schema: JsonSchema } | undefined {
  switch (target.kind) {
    case "natural":
      return undefined; // Text in, text out.
    case "workflow":
      return { input_schema: objectSchema(workflowInputFields(target.workflow), "draft-07"), output_schema: workflowResultSchema(target.workflow) };
    case "capability": {
      const { input, output } = target.capability;
      return {
        input_schema: input === undefined ? anyObject : objectSchema(input, "draft-07"),
        output_schema: output === undefined ? anyObject : objectSchema(output, "draft-07"),
      };
    }
  }
}

/** The skills' JSON Schemas as a card extension (AgentSkill has no field for them; other clients ignore it). */
function skillSchemasExtension(targets: ReadonlyMap<string, SkillTarget>): AgentExtension {
  const skills: Record<string, unknown> = {};
  for (const target of targets.values()) {
    const schemas = schemasOf(target);
    if (schemas !== undefined) skills[target.id] = schemas;
  }
  return {
    uri: SKILL_SCHEMAS_EXTENSION,
    description: "JSON Schemas of the skills' input (the first data part) and output (the artifact's data part)",
    required: false,
    params: { skills },
  };
}

export interface CardInputs {
  readonly spec: ComponentSpec;
  readonly targets: ReadonlyMap<string, SkillTarget>;
  /** The agent's public base URL as the caller reached it (proxies included). */
  readonly baseUrl: string;
  /** Whether callers prove themselves with a bearer token. */
  readonly bearer: boolean;
}

const bearerScheme: SecurityScheme = {
  scheme: { $case: "httpAuthSecurityScheme", value: { scheme: "Bearer", bearerFormat: "", description: "The agent's bearer token (Authorization: Bearer …)" } },
};

export function buildAgentCard({ spec, targets, baseUrl, bearer }: CardInputs): AgentCard {
  return {
    name: spec.name,
    description: spec.description,
    version: spec.version,
    // The same endpoint answers v0.3 method names too (the SDK's legacy handler): listed second, so a
    // v1.0 client keeps the first and a client with the SDK's legacy compatibility can pick this one.
    supportedInterfaces: [
      { url: `${baseUrl}${A2A_PATH}`, protocolBinding: "JSONRPC", tenant: "", protocolVersion: A2A_PROTOCOL },
      { url: `${baseUrl}${A2A_PATH}`, protocolBinding: "JSONRPC", tenant: "", protocolVersion: "0.3" },
    ],
    provider: undefined,
    // No push notifications: a client follows a task by streaming or by GetTask.
    capabilities: { streaming: true, pushNotifications: false, extensions: [skillSchemasExtension(targets)], extendedAgentCard: false },
    securitySchemes: bearer ? { [BEARER]: bearerScheme } : {},
    securityRequirements: bearer ? [{ schemes: { [BEARER]: { list: [] } } }] : [],
    defaultInputModes: [TEXT, DATA],
    defaultOutputModes: [TEXT, DATA],
    skills: [...targets.values()].map((target) => skillOf(target, spec.name)),
    signatures: [],
  };
}
