/**
 * An agent's orchestration as MCP tools (issue 34), served on `/mcp` beside its capabilities:
 *
 * - `ask` `{request}`: natural mode, answered exactly as `POST /orchestrate/natural` answers (same
 *   orchestrator call, synthesis on when the route would have it), its text the synthesised answer or
 *   the model's question;
 * - one tool per served workflow, named as the workflow, typed by the same request schema as
 *   `POST /orchestrate/<name>` (its inputs and `ai_synthesis`), answering the route's body.
 *
 * Each tool calls its route's own work, so the two doors cannot drift apart. A run that stops for a
 * human (HITL; the route's 202 `{status: "interrupted", checkpoint_id, checkpoint}`) is a normal tool
 * result, not an error: nothing failed, and the host's model needs the checkpoint id to tell the user
 * what to approve.
 */
import { JsonReply, type McpTool, type McpToolAnswer, type PostContext } from "../component/index.js";
import { ManifoldError } from "../errors/index.js";
import { workflowOutputSchema, workflowRequestSchema, type JsonSchema } from "../spec/index.js";
import type { ComponentSpec, WorkflowSpec } from "../spec/index.js";
import type { Logger } from "../telemetry/index.js";

/** The natural-mode tool's name. */
export const ASK_TOOL = "ask";

/** A route's work as a tool calls it: the request body, the call's signal; resolves to the route's answer. */
export type RouteWork = (body: Record<string, unknown>, context: Pick<PostContext, "signal">) => Promise<unknown>;

export interface OrchestrationMcpSources {
  readonly spec: ComponentSpec;
  readonly log: Logger;
  /** `POST /orchestrate/natural`'s work, when the agent serves it, and the longest request it takes (characters). */
  readonly natural?: { readonly run: RouteWork; readonly maxRequest: number };
  /** Each served workflow and its route's work. */
  readonly workflows: readonly { readonly workflow: WorkflowSpec; readonly run: RouteWork }[];
}

const askInput = (maxRequest: number): JsonSchema => ({
  type: "object",
  properties: { request: { type: "string", minLength: 1, maxLength: maxRequest, description: "What to do, in natural language" } },
  required: ["request"],
  additionalProperties: false,
});

/** The properties of the 202 a run paused for approval answers, which every tool may answer too. */
const INTERRUPTED_PROPERTIES: JsonSchema = {
  checkpoint_id: { type: "string", description: "interrupted: the checkpoint to approve (POST /hitl/command), then resume (POST /hitl/resume/<id>)" },
  checkpoint: { type: "object", description: "interrupted: the stored checkpoint (its type, step, resolved parameters, decision)" },
};

const ASK_OUTPUT: JsonSchema = {
  type: "object",
  properties: {
    status: {
      type: "string",
      enum: ["completed", "needs_input", "interrupted"],
      description: "needs_input: the model asked a question (question); interrupted: a step waits for human approval (checkpoint_id)",
    },
    response: { type: "string", description: "completed: the synthesised answer" },
    question: { type: "string", description: "needs_input: the question for the user" },
    steps: { type: "array", description: "Every step's result" },
    ...INTERRUPTED_PROPERTIES,
  },
  required: ["status"],
};

/** A workflow tool's structured answer: the route's 200 body with typed `outputs`, or the paused run's 202 body. */
function workflowResultSchema(workflow: WorkflowSpec): JsonSchema {
  return {
    type: "object",
    properties: {
      success: { type: "boolean" },
      plan_id: { type: "string" },
      workflow: { type: "string", enum: [workflow.name] },
      outputs: workflowOutputSchema(workflow, "draft-07"),
      response: { type: "string", description: "The language-model synthesis, when ai_synthesis was asked for" },
      steps: { type: "array", description: "Every step's result" },
      duration_ms: { type: "number" },
      status: { type: "string", enum: ["interrupted"], description: "Present only when a step waits for human approval" },
      ...INTERRUPTED_PROPERTIES,
    },
    anyOf: [{ required: ["success", "plan_id", "workflow", "outputs", "steps", "duration_ms"] }, { required: ["status", "checkpoint_id", "checkpoint"] }],
  };
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** What a paused run's text tells the host: nothing past the checkpoint ran, and how a person lets it go on. */
export function approvalPendingText(body: Record<string, unknown>): string {
  const id = String(body["checkpoint_id"]);
  const checkpoint = isRecord(body["checkpoint"]) ? body["checkpoint"] : {};
  const step = isRecord(checkpoint["current_step"]) ? checkpoint["current_step"]["step_id"] : undefined;
  const where = typeof step === "string" ? ` before step ${step}` : "";
  return (
    `Approval pending: the run stopped${where} at checkpoint ${id} and nothing past it has run. ` +
    `Someone allowed to decide approves it on this agent with POST /hitl/command {"checkpoint_id": "${id}", "action": "approve"} ` +
    `(or in the dashboard), then continues the run with POST /hitl/resume/${id}.`
  );
}

/** A route's answer as a tool result: its body, with a text the host's model reads first. */
function answerOf(payload: unknown, textOf: (body: Record<string, unknown>) => unknown): McpToolAnswer {
  const body = payload instanceof JsonReply ? payload.body : payload;
  if (!isRecord(body)) throw new ManifoldError("INTERNAL", "an orchestration route answered something other than an object");
  if (body["status"] === "interrupted" && typeof body["checkpoint_id"] === "string") return { structured: body, text: approvalPendingText(body) };
  const text = textOf(body);
  // No prose to give (synthesis off, nothing asked): the host reads the JSON of the body.
  return typeof text === "string" && text !== "" ? { structured: body, text } : { structured: body };
}

const naturalText = (body: Record<string, unknown>): unknown => (body["status"] === "needs_input" ? body["question"] : body["response"]);

/**
 * The tools, without any whose name a capability of the agent already serves: the tool names are the
 * capability names (issue 34), so the author's name wins and the framework's tool is left out with a
 * warning. A workflow named `ask` likewise keeps the name over natural mode's tool.
 */
export function createOrchestrationMcpTools({ spec, log, natural, workflows }: OrchestrationMcpSources): McpTool[] {
  const taken = new Set(spec.capabilities.filter((c) => !c.internal).map((c) => c.name));
  const tools: McpTool[] = [];
  const add = (tool: McpTool, what: string): void => {
    if (taken.has(tool.name)) {
      const owner = tool.name === ASK_TOOL ? "a capability or workflow" : "a capability";
      log.warn(`MCP: ${spec.name} serves ${what} as no tool: ${owner} of ${spec.name} already has the name ${tool.name}`);
      return;
    }
    taken.add(tool.name);
    tools.push(tool);
  };
  for (const { workflow, run } of workflows) {
    add(
      {
        name: workflow.name,
        description: workflow.description ?? `Run workflow ${workflow.name}`,
        inputSchema: workflowRequestSchema(workflow, "draft-07"),
        ...(workflow.outputs.length === 0 ? {} : { outputSchema: workflowResultSchema(workflow) }),
        call: async (args, context) => answerOf(await run(args, context), (body) => body["response"]),
      },
      `workflow ${workflow.name}`,
    );
  }
  if (natural !== undefined)
    add(
      {
        name: ASK_TOOL,
        description: `Ask ${spec.name} in natural language: it plans over the tools it can use, runs the checked plan and answers in prose (natural mode).`,
        inputSchema: askInput(natural.maxRequest),
        outputSchema: ASK_OUTPUT,
        call: async ({ request }, context) => answerOf(await natural.run({ request }, context), naturalText),
      },
      "natural mode",
    );
  return tools;
}
