/**
 * The HITL Interrupted view's data and its one management action: checkpoints as the store holds
 * them, each with whether Approve and Reject may be offered (the spec's rule), and the command
 * proxied to the agent that owns the checkpoint, found through discovery.
 */
import { baseUrlOf, preferHealthy, type Registry } from "../discovery/index.js";
import { ManifoldError } from "../errors/index.js";
import { MAX_REASON, type Checkpoint, type CheckpointStore, type CheckpointType } from "../hitl/index.js";
import type { Caller } from "../outbound/index.js";
import { describeIgnored, trusted } from "./registry-view.js";

/** Whether the dashboard offers Approve and Reject, and why not when it does not. */
export interface CheckpointActions {
  readonly enabled: boolean;
  readonly reason?: string;
  /** The agent a command goes to. */
  readonly agent?: string;
}

/** A checkpoint as listed: the record without completed steps' outputs, plus its actions. */
export interface CheckpointView extends Omit<Checkpoint, "completed_steps" | "original_request"> {
  readonly original_request: unknown;
  readonly completed_steps: readonly string[];
  readonly actions: CheckpointActions;
}

/** A request body bigger than this is shown as the start of its JSON text. */
const MAX_SHOWN_REQUEST = 4096;

/**
 * The spec's rule: buttons only for a `non_streaming` checkpoint with an `agent_name` (a streaming
 * one belongs to the client still connected to it). A dashboard scoped to one agent
 * (MANIFOLD_AGENT_NAME) offers them only for that agent's checkpoints.
 */
export function actionsOf(checkpoint: Checkpoint, scope: string | undefined, now: number): CheckpointActions {
  const agent = typeof checkpoint.agent_name === "string" && checkpoint.agent_name !== "" ? checkpoint.agent_name : undefined;
  if (checkpoint.status !== "pending") return { enabled: false, reason: `already ${checkpoint.status}` };
  if (checkpoint.request_mode !== "non_streaming")
    return { enabled: false, reason: "streaming checkpoint: only the client connected to its stream can resolve it" };
  if (agent === undefined) return { enabled: false, reason: "no agent_name recorded: nobody to send the command to" };
  if (scope !== undefined && agent !== scope) return { enabled: false, reason: `this dashboard commands ${scope}'s checkpoints only (MANIFOLD_AGENT_NAME)` };
  if (Date.parse(checkpoint.expires_at) <= now) return { enabled: false, reason: `expired: its default action (${checkpoint.default_action}) applies` };
  return { enabled: true, agent };
}

export function checkpointView(checkpoint: Checkpoint, scope: string | undefined, now: number): CheckpointView {
  const { completed_steps, original_request, ...rest } = checkpoint;
  const text = JSON.stringify(original_request) ?? "";
  return {
    ...rest,
    original_request: text.length > MAX_SHOWN_REQUEST ? `${text.slice(0, MAX_SHOWN_REQUEST)}…` : original_request,
    completed_steps: completed_steps.map((step) => String(step["step_id"] ?? "")),
    actions: actionsOf(checkpoint, scope, now),
  };
}

export const CHECKPOINT_TYPES: readonly CheckpointType[] = ["plan", "step", "error"];

export interface CommandRequest {
  readonly checkpointId: string;
  readonly action: "approve" | "reject";
  readonly reason?: string;
  readonly parameters?: Record<string, unknown>;
  /** After an approve, resume the run at once. @defaultValue true */
  readonly resume: boolean;
}

export function parseCommand(body: Record<string, unknown>): CommandRequest {
  const { checkpoint_id, action, reason, parameters, resume, ...rest } = body;
  const isObject = typeof parameters === "object" && parameters !== null && !Array.isArray(parameters);
  const details = [
    ...(typeof checkpoint_id === "string" && checkpoint_id !== "" ? [] : [{ pointer: "/checkpoint_id", message: "is required: a string" }]),
    ...(action === "approve" || action === "reject" ? [] : [{ pointer: "/action", message: "must be approve or reject" }]),
    ...(reason === undefined || (typeof reason === "string" && reason.length <= MAX_REASON)
      ? []
      : [{ pointer: "/reason", message: `must be a string of at most ${MAX_REASON} characters` }]),
    ...(parameters === undefined || (isObject && action === "approve") ? [] : [{ pointer: "/parameters", message: "must be an object, with action approve" }]),
    ...(resume === undefined || typeof resume === "boolean" ? [] : [{ pointer: "/resume", message: "must be a boolean" }]),
    ...Object.keys(rest)
      .slice(0, 5)
      .map((key) => ({ pointer: `/${key.replaceAll("~", "~0").replaceAll("/", "~1")}`, message: "is not an allowed property" })),
  ];
  if (details.length > 0) throw new ManifoldError("INVALID_INPUT", "hitl command is not valid", { details });
  return {
    checkpointId: checkpoint_id as string,
    action: action as "approve" | "reject",
    ...(typeof reason === "string" ? { reason } : {}),
    ...(isObject ? { parameters: parameters as Record<string, unknown> } : {}),
    resume: resume !== false,
  };
}

export interface CommandDeps {
  readonly checkpoints: CheckpointStore;
  readonly registry: Registry;
  readonly caller: Caller;
  /** MANIFOLD_AGENT_NAME: the one agent whose checkpoints this dashboard commands, when set. */
  readonly scope: string | undefined;
  /** How long a resumed run may take to answer. */
  readonly resumeTimeoutMs: number;
  readonly now: () => number;
}

/**
 * Where the owning agent answers: a registered replica (any of them shares the store), else the URL
 * the checkpoint recorded. With a registry key only a verified record is used, and never the
 * checkpoint's URL (the store is what a forger writes to): a command carries the dashboard's token.
 */
async function agentUrl(registry: Registry, agent: string, checkpoint: Checkpoint): Promise<string> {
  const verifies = registry.verifies === true;
  const registered = await registry.byName(agent, { health: ["healthy", "degraded"], unverified: true });
  const replicas = preferHealthy(registered.filter((e) => trusted(e, verifies)));
  const first = replicas[0];
  if (first !== undefined) return baseUrlOf(first);
  if (registered.length > 0)
    throw new ManifoldError(
      "CONFLICT",
      `agent ${agent} has no verified registration (${describeIgnored(registered)}): commands go only to records signed with MANIFOLD_REGISTRY_KEY`,
    );
  if (!verifies && checkpoint.agent_url !== undefined && /^https?:\/\//.test(checkpoint.agent_url)) return checkpoint.agent_url.replace(/\/+$/, "");
  throw new ManifoldError("UNAVAILABLE", `agent ${agent} is not registered: nobody can apply the command`);
}

export interface CommandResult {
  readonly success: true;
  readonly checkpoint: unknown;
  /** The resumed run's answer (its route's body, or a further checkpoint). */
  readonly resumed?: unknown;
  /** The approval stands but the resume failed: what the agent said. */
  readonly resume_error?: { readonly code: string; readonly message: string };
}

export async function proxyCommand(request: CommandRequest, deps: CommandDeps): Promise<CommandResult> {
  const checkpoint = await deps.checkpoints.get(request.checkpointId);
  if (checkpoint === undefined) throw new ManifoldError("NOT_FOUND", `no checkpoint ${JSON.stringify(request.checkpointId.slice(0, 80))}`);
  const actions = actionsOf(checkpoint, deps.scope, deps.now());
  if (!actions.enabled || actions.agent === undefined) {
    throw new ManifoldError("CONFLICT", `checkpoint ${checkpoint.checkpoint_id} cannot be commanded from the dashboard: ${actions.reason}`, {
      details: [{ pointer: "/checkpoint_id", message: actions.reason ?? "not commandable", status: checkpoint.status, request_mode: checkpoint.request_mode }],
    });
  }
  const url = await agentUrl(deps.registry, actions.agent, checkpoint);
  const decided = (await deps.caller.call({
    url: `${url}/hitl/command`,
    name: "hitl_command",
    target: actions.agent,
    body: {
      checkpoint_id: checkpoint.checkpoint_id,
      action: request.action,
      ...(request.reason === undefined ? {} : { reason: request.reason }),
      ...(request.parameters === undefined ? {} : { parameters: request.parameters }),
    },
  })) as { checkpoint?: unknown };
  if (request.action !== "approve" || !request.resume) return { success: true, checkpoint: decided.checkpoint };
  try {
    const resumed = await deps.caller.call({
      url: `${url}/hitl/resume/${checkpoint.checkpoint_id}`,
      name: "hitl_resume",
      target: actions.agent,
      body: {},
      timeoutMs: deps.resumeTimeoutMs,
    });
    return { success: true, checkpoint: decided.checkpoint, resumed };
  } catch (error) {
    // The approval happened and stays; the user sees why the run did not go on (and may resume later).
    const failure = error instanceof ManifoldError && error.expose ? error : new ManifoldError("INTERNAL", "the resume failed");
    return { success: true, checkpoint: decided.checkpoint, resume_error: { code: failure.code, message: failure.message } };
  }
}
