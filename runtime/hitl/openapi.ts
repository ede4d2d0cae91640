/**
 * The HITL feature's part of an agent's OpenAPI document: the `/hitl` routes (command, resume, the
 * resume stream, the checkpoint list and one checkpoint), tagged `hitl`, and the 202 a paused run
 * answers on the orchestration routes. Emitted for agents whose manifest has a `hitl:` block; one
 * turned on by `MANIFOLD_HITL_ENABLED` alone serves the routes without documenting them in the file.
 */
import { addErrorEnvelope, ERROR_RESPONSE as ERROR, jsonContent as json, schemaRef as ref, type JsonSchema, type OpenApiParts } from "../spec/index.js";
import type { AgentSpec } from "../spec/index.js";

const STRING: JsonSchema = { type: "string" };
const TIME: JsonSchema = { type: "string", format: "date-time" };
const OBJECT: JsonSchema = { type: "object" };
const CHECKPOINT_ID: JsonSchema = { type: "string", pattern: "^cp-[0-9a-f]{32}$" };
const TYPE: JsonSchema = { type: "string", enum: ["plan", "step", "error"] };
const STATUS: JsonSchema = { type: "string", enum: ["pending", "approved", "rejected", "expired_approved", "expired", "resumed", "failed"] };
const ACTION: JsonSchema = { type: "string", enum: ["approve", "reject"] };

const SCHEMAS: Readonly<Record<string, JsonSchema>> = {
  Checkpoint: {
    type: "object",
    description: "A human approval checkpoint: the paused run, why it paused, and what became of it",
    properties: {
      checkpoint_id: CHECKPOINT_ID,
      type: TYPE,
      status: STATUS,
      agent_name: STRING,
      agent_url: { type: "string", description: "Where the agent is reached for a resume on another replica" },
      request_mode: { type: "string", enum: ["streaming", "non_streaming"] },
      plan: { type: "object", description: "The routing plan of the paused run (snake_case)" },
      current_step: {
        type: "object",
        description: "The blocked step; absent for a plan checkpoint",
        properties: { step_id: STRING, index: { type: "integer", minimum: 0 } },
        required: ["step_id", "index"],
      },
      resolved_parameters: { type: "object", description: "The blocked step's parameters with their expressions resolved" },
      decision: {
        type: "object",
        properties: {
          reason: STRING,
          sensitive_matches: { type: "array", items: STRING },
          indirect: {
            type: "object",
            description: "The sensitive call the blocked step reached through another component's handler; approving runs exactly it, once",
            properties: { component: STRING, capability: STRING, parameters: {}, parameters_hash: STRING },
            required: ["component", "capability", "parameters_hash"],
          },
        },
        required: ["reason", "sensitive_matches"],
      },
      original_request: { description: "The request as received" },
      user_context: { type: "object", properties: { conversation_id: STRING, session_id: STRING } },
      requested_by: {
        type: "object",
        description: "Who made the paused request: only they, or a subject in MANIFOLD_HITL_APPROVERS, may see and decide it",
        properties: { subject: STRING, kind: { type: "string", enum: ["user", "agent"] } },
        required: ["subject", "kind"],
      },
      original_request_id: STRING,
      completed_steps: { type: "array", description: "Results of the steps done before the pause: a resume never runs them again", items: OBJECT },
      default_action: { type: "string", enum: ["approve", "reject"], description: "What applies when nobody decides before expires_at" },
      created_at: TIME,
      expires_at: TIME,
      resolution: {
        type: "object",
        description: "The decision that moved it out of pending",
        properties: { action: { type: "string", enum: ["approve", "reject", "expire"] }, reason: STRING, at: TIME },
        required: ["action", "at"],
      },
      resumed_at: TIME,
      attempts: {
        type: "integer",
        minimum: 1,
        description: "Resumes that failed before the approved step ran; each gave the approval back. At the cap (5) the checkpoint is failed",
      },
    },
    required: ["checkpoint_id", "type", "status", "agent_name", "request_mode", "plan", "decision", "created_at", "expires_at", "default_action"],
  },
  Interrupted: {
    type: "object",
    description: "The run paused for human approval; approve or reject the checkpoint, then resume it",
    properties: { status: { type: "string", enum: ["interrupted"] }, checkpoint_id: CHECKPOINT_ID, checkpoint: ref("Checkpoint") },
    required: ["status", "checkpoint_id", "checkpoint"],
  },
  HitlCommand: {
    type: "object",
    properties: {
      checkpoint_id: CHECKPOINT_ID,
      action: ACTION,
      reason: { type: "string", maxLength: 2000 },
      parameters: { type: "object", description: "With approve on an error checkpoint: the failed step's corrected parameters, used when the run resumes" },
    },
    required: ["checkpoint_id", "action"],
    additionalProperties: false,
  },
  CheckpointPage: {
    type: "object",
    properties: {
      checkpoints: { type: "array", description: "Newest first", items: ref("Checkpoint") },
      next_cursor: { type: "string", description: "Present when more may follow: pass it as cursor" },
    },
    required: ["checkpoints"],
  },
};

const RESUME_SSE_DESCRIPTION =
  "Server-sent events: `done` with the resumed run's answer, `checkpoint` with an Interrupted body when the run pauses again, or `error` {code, message}; on an agent with chat, `session` {session_id, created: true} before `done` when the answer went into a new session (the checkpoint named none). Comment lines are heartbeats.";

const checkpointPath: JsonSchema = { name: "checkpoint_id", in: "path", required: true, schema: CHECKPOINT_ID };
const error = (description: string): JsonSchema => ({ description, content: json(ref("ErrorEnvelope")) });
const NOT_FOUND = error("No such checkpoint (NOT_FOUND): unknown, past its retention, or not a checkpoint id");
const CONFLICT = error("The checkpoint's status does not allow this (CONFLICT); `details[0].status` names it");
const PAUSED: JsonSchema = { description: "Paused for human approval", content: json(ref("Interrupted")) };

/** The orchestration routes, which answer 202 when a run pauses: POST /orchestrate/<workflow>, custom and natural. */
function addPausedAnswers(paths: JsonSchema): void {
  for (const [path, item] of Object.entries(paths) as [string, JsonSchema][]) {
    const op = item["post"] as JsonSchema | undefined;
    if (!path.startsWith("/orchestrate/") || op === undefined || !(op["tags"] as string[]).includes("orchestration")) continue;
    const responses = { ...(op["responses"] as JsonSchema), "202": PAUSED };
    op["responses"] = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
  }
}

/** Adds the `/hitl` paths and schemas, in a fixed order so the emitted file is byte-stable. */
export function addHitlPaths(agent: AgentSpec, { paths, schemas }: OpenApiParts): void {
  if (agent.hitl === undefined) return;
  addErrorEnvelope(schemas);
  Object.assign(schemas, SCHEMAS);
  addPausedAnswers(paths);
  Object.assign(paths, decisionPaths(), listPaths());
}

/** Deciding and resuming: `/hitl/command`, `/hitl/resume/{id}` and its stream. */
function decisionPaths(): Record<string, JsonSchema> {
  const paths: Record<string, JsonSchema> = {};
  paths["/hitl/command"] = {
    post: {
      operationId: "hitlCommand",
      summary: "Approve or reject a pending checkpoint",
      tags: ["hitl"],
      requestBody: { required: true, content: json(ref("HitlCommand")) },
      responses: {
        "200": {
          description: "The decision is recorded",
          content: json({
            type: "object",
            properties: { success: { type: "boolean", enum: [true] }, checkpoint: ref("Checkpoint") },
            required: ["success", "checkpoint"],
          }),
        },
        "400": ERROR,
        "404": NOT_FOUND,
        "409": CONFLICT,
      },
    },
  };
  paths["/hitl/resume/{checkpoint_id}"] = {
    post: {
      operationId: "hitlResume",
      summary: "Continue an approved (or expired-approved) run where it paused",
      tags: ["hitl"],
      parameters: [checkpointPath],
      responses: {
        "200": {
          description: "The resumed run's answer",
          content: json({
            type: "object",
            description:
              "the answer of the run's own route: a workflow, custom or natural result; on an agent with chat also `session_id`, the session now holding the answer (a new one of the requester's when the checkpoint named none)",
          }),
        },
        "202": { description: "The resumed run paused again, at a further checkpoint", content: json(ref("Interrupted")) },
        "404": NOT_FOUND,
        "409": CONFLICT,
        "502": error("A step of the resumed run failed; `details` lists every step"),
      },
    },
  };
  paths["/hitl/auto-resume/{checkpoint_id}/stream"] = {
    get: {
      operationId: "hitlResumeStream",
      summary: "Resume an approved checkpoint; the outcome streams back",
      tags: ["hitl"],
      parameters: [checkpointPath],
      responses: {
        "200": { description: RESUME_SSE_DESCRIPTION, content: { "text/event-stream": { schema: STRING } } },
        "404": NOT_FOUND,
        "409": CONFLICT,
      },
    },
  };
  return paths;
}

/** What the dashboard lists: `/hitl/checkpoints` and `/hitl/checkpoints/{id}`. */
function listPaths(): Record<string, JsonSchema> {
  const paths: Record<string, JsonSchema> = {};
  paths["/hitl/checkpoints"] = {
    get: {
      operationId: "listCheckpoints",
      summary: "The agent's checkpoints, newest first",
      tags: ["hitl"],
      parameters: [
        { name: "status", in: "query", required: false, schema: STATUS },
        { name: "type", in: "query", required: false, schema: TYPE },
        { name: "limit", in: "query", required: false, schema: { type: "integer", minimum: 1, maximum: 100, default: 50 } },
        { name: "cursor", in: "query", required: false, schema: { type: "string", description: "A page's next_cursor: the page after it" } },
      ],
      responses: { "200": { description: "A page of checkpoints", content: json(ref("CheckpointPage")) }, "400": ERROR },
    },
  };
  paths["/hitl/checkpoints/{checkpoint_id}"] = {
    get: {
      operationId: "getCheckpoint",
      summary: "One checkpoint",
      tags: ["hitl"],
      parameters: [checkpointPath],
      responses: { "200": { description: "The checkpoint", content: json(ref("Checkpoint")) }, "404": NOT_FOUND },
    },
  };
  return paths;
}
