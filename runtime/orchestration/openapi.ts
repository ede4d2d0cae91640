/**
 * The orchestration feature's part of an agent's OpenAPI document: one POST per served workflow and
 * custom mode, tagged `orchestration` so readers can tell them from the agent's own capabilities.
 */
import { addErrorEnvelope, ERROR_RESPONSE as ERROR, jsonContent as json, schemaRef as ref, type OpenApiParts } from "../spec/index.js";
import { servedWorkflows, workflowOutputSchema, workflowRequestSchema, workflowTypeStem } from "../spec/index.js";
import type { JsonSchema } from "../spec/index.js";
import type { AgentSpec, WorkflowSpec } from "../spec/index.js";
import { PLAN_STEP_SCHEMA } from "../spec/index.js";

const STEP_RESULT: JsonSchema = {
  type: "object",
  properties: {
    step_id: { type: "string" },
    component: { type: "string" },
    capability: { type: "string" },
    status: { type: "string", enum: ["completed", "failed", "skipped"] },
    output: {},
    error: { type: "object", properties: { code: { type: "string" }, message: { type: "string" } } },
    attempts: { type: "integer" },
    duration_ms: { type: "number" },
  },
  required: ["step_id", "status"],
};

const CUSTOM_REQUEST: JsonSchema = {
  type: "object",
  properties: {
    steps: {
      type: "array",
      minItems: 1,
      items: {
        type: "object",
        properties: { tool: { type: "string" }, capability: { type: "string" }, params: { type: "object" } },
        required: ["tool", "capability"],
        additionalProperties: false,
      },
    },
  },
  required: ["steps"],
  additionalProperties: false,
};

const CUSTOM_RESULT: JsonSchema = {
  type: "object",
  properties: {
    success: { type: "boolean" },
    plan_id: { type: "string" },
    mode: { type: "string", enum: ["custom"] },
    steps: {
      type: "array",
      items: {
        type: "object",
        properties: {
          step_id: { type: "string" },
          tool: { type: "string" },
          capability: { type: "string" },
          success: { type: "boolean" },
          error: { type: "object", nullable: true },
          output: {},
          duration_ms: { type: "number" },
        },
        required: ["step_id", "success", "error"],
      },
    },
    duration_ms: { type: "number" },
  },
  required: ["success", "plan_id", "steps"],
};

const PLAN: JsonSchema = {
  type: "object",
  description: "The routing plan that ran (snake_case, as hooks and execution records see it)",
  properties: {
    plan_id: { type: "string" },
    original_request: { type: "string" },
    mode: { type: "string" },
    steps: { type: "array", items: PLAN_STEP_SCHEMA },
  },
  required: ["plan_id", "original_request", "mode", "steps"],
};

const NATURAL_REQUEST: JsonSchema = {
  type: "object",
  properties: {
    request: { type: "string", minLength: 1, maxLength: 8000, description: "What to do, in natural language" },
    ai_synthesis: { type: "boolean", description: "Answer in prose (`response`); false returns the raw step results only. Default true" },
  },
  required: ["request"],
  additionalProperties: false,
};

const NATURAL_RESULT: JsonSchema = {
  type: "object",
  properties: {
    success: { type: "boolean", enum: [true] },
    request_id: { type: "string" },
    status: {
      type: "string",
      enum: ["completed", "needs_input"],
      description: "needs_input: the model asked the user (question, missing_fields) instead of guessing; nothing new was dispatched",
    },
    phases: { type: "integer", minimum: 1, description: "Phases planned (MANIFOLD_MAX_PHASES at most)" },
    question: { type: "string", description: "needs_input: the question for the user; answer it in the next request or chat turn" },
    missing_fields: { type: "array", items: { type: "string" }, description: "needs_input: the values the request lacks" },
    response: { type: "string", description: "The synthesised answer; absent with ai_synthesis false" },
    tools_used: { type: "array", items: { type: "string" }, description: "Components whose steps completed, in plan order" },
    confidence: {
      type: "number",
      minimum: 0,
      maximum: 1,
      description: "Share of planned steps that completed (1 for a plan with none), times 0.9 per regenerated plan",
    },
    plan_id: { type: "string" },
    mode: { type: "string", enum: ["natural"] },
    plan: ref("RoutingPlan"),
    steps: { type: "array", items: ref("WorkflowStepResult") },
    duration_ms: { type: "number" },
    metadata: {
      type: "object",
      description: "What the request cost",
      properties: {
        usage_by_phase: {
          type: "object",
          description: "Tokens by interaction type (plan_generation, continuation_plan, error_analysis, micro_resolution, synthesis)",
          additionalProperties: {
            type: "object",
            properties: { prompt_tokens: { type: "integer" }, completion_tokens: { type: "integer" }, total_tokens: { type: "integer" } },
            required: ["prompt_tokens", "completion_tokens", "total_tokens"],
          },
        },
        llm_calls: { type: "integer", minimum: 0, description: "Model calls the request made (at most MANIFOLD_MAX_LLM_CALLS)" },
      },
      required: ["usage_by_phase", "llm_calls"],
    },
  },
  // A needs_input answer carries the question instead of tools_used, confidence and plan.
  required: ["success", "request_id", "status", "phases", "plan_id", "mode", "steps", "duration_ms", "metadata"],
};

/** Adds the orchestration paths and schemas, in a fixed order so the emitted file is byte-stable. */
export function addOrchestrationPaths(agent: AgentSpec, { paths, schemas }: OpenApiParts): void {
  const workflows = servedWorkflows(agent);
  const custom = agent.orchestration.custom;
  const natural = agent.orchestration.natural !== undefined;
  if (workflows.length === 0 && !custom && !natural) return;
  addErrorEnvelope(schemas);
  if (workflows.length > 0 || natural) schemas["WorkflowStepResult"] = STEP_RESULT;
  for (const workflow of workflows) addWorkflowPath(workflow, paths, schemas);
  if (custom) addCustomPath(paths, schemas);
  if (natural) addNaturalPath(paths, schemas);
}

/** `POST /orchestrate/<workflow>` and the workflow's input, output and result schemas. */
function addWorkflowPath(workflow: WorkflowSpec, paths: OpenApiParts["paths"], schemas: OpenApiParts["schemas"]): void {
  const stem = workflowTypeStem(workflow);
  schemas[`${stem}WorkflowInput`] = workflowRequestSchema(workflow, "openapi-3.0");
  schemas[`${stem}WorkflowOutput`] = workflowOutputSchema(workflow, "openapi-3.0");
  schemas[`${stem}WorkflowResult`] = {
    type: "object",
    properties: {
      success: { type: "boolean", enum: [true] },
      plan_id: { type: "string" },
      workflow: { type: "string", enum: [workflow.name] },
      outputs: ref(`${stem}WorkflowOutput`),
      response: { type: "string", description: "The language-model synthesis, when ai_synthesis was asked for" },
      steps: { type: "array", items: ref("WorkflowStepResult") },
      duration_ms: { type: "number" },
    },
    required: ["success", "plan_id", "workflow", "outputs", "steps", "duration_ms"],
  };
  paths[`/orchestrate/${workflow.name}`] = {
    post: {
      operationId: `orchestrate${stem}`,
      summary: workflow.description ?? `Run workflow ${workflow.name}`,
      tags: ["orchestration"],
      requestBody: { required: true, content: json(ref(`${stem}WorkflowInput`)) },
      responses: {
        "200": { description: "The workflow's outputs and every step's result", content: json(ref(`${stem}WorkflowResult`)) },
        "400": ERROR,
        "502": { description: "A step failed; `details` lists every step", content: json(ref("ErrorEnvelope")) },
        "503": { description: "ai_synthesis was asked for and no language model is configured (LLM_UNAVAILABLE)", content: json(ref("ErrorEnvelope")) },
      },
    },
  };
}

/** `POST /orchestrate/custom`. */
function addCustomPath(paths: OpenApiParts["paths"], schemas: OpenApiParts["schemas"]): void {
  schemas["CustomOrchestrationRequest"] = CUSTOM_REQUEST;
  schemas["CustomOrchestrationResult"] = CUSTOM_RESULT;
  paths["/orchestrate/custom"] = {
    post: {
      operationId: "orchestrateCustom",
      summary: "Run an inline list of capability calls, strictly in order",
      tags: ["orchestration"],
      requestBody: { required: true, content: json(ref("CustomOrchestrationRequest")) },
      responses: {
        "200": { description: "One entry per step, failed steps reported in place", content: json(ref("CustomOrchestrationResult")) },
        "400": ERROR,
      },
    },
  };
}

/** `POST /orchestrate/natural` and the routing plan's schema. */
function addNaturalPath(paths: OpenApiParts["paths"], schemas: OpenApiParts["schemas"]): void {
  schemas["RoutingPlan"] = PLAN;
  schemas["NaturalOrchestrationRequest"] = NATURAL_REQUEST;
  schemas["NaturalOrchestrationResult"] = NATURAL_RESULT;
  paths["/orchestrate/natural"] = {
    post: {
      operationId: "orchestrateNatural",
      summary: "Plan with a language model over the live catalog, run the checked plan, answer in prose",
      tags: ["orchestration"],
      requestBody: { required: true, content: json(ref("NaturalOrchestrationRequest")) },
      responses: {
        "200": { description: "The answer, the plan that ran and every step's result", content: json(ref("NaturalOrchestrationResult")) },
        "400": ERROR,
        "422": {
          description: "The model's plan still failed the checks after its regenerations (PLAN_INVALID); nothing ran",
          content: json(ref("ErrorEnvelope")),
        },
        "502": { description: "The language model endpoint failed (LLM_ERROR)", content: json(ref("ErrorEnvelope")) },
        "503": { description: "No language model is configured (LLM_UNAVAILABLE); the message names the variables", content: json(ref("ErrorEnvelope")) },
      },
    },
  };
}
