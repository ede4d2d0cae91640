/**
 * The `/hitl` routes of an agent:
 *
 * - `POST /hitl/command` `{checkpoint_id, action: approve|reject, reason?}`: one compare-and-set (a
 *   second decision, or one after expiry, is 409 CONFLICT);
 * - `POST /hitl/resume/<id>`: continues an approved checkpoint's run and answers as its route would
 *   (or 202 with a further checkpoint);
 * - `GET /hitl/auto-resume/<id>/stream`: the same over server-sent events: errors before the stream
 *   opens are envelopes with their status; after, one `error` event with `retryable: false`; `done`
 *   (the answer) or `checkpoint` (a further one) only once the run has finished;
 * - `GET /hitl/checkpoints` and `GET /hitl/checkpoints/<id>`: what the dashboard lists.
 *
 * Each route acts only on checkpoints the caller may decide: those its own requests made
 * (`requested_by`, the proven identity of context/identity.ts), or any when its subject is listed in
 * `MANIFOLD_HITL_APPROVERS` (the dashboard's token subject goes there). Others' checkpoints are left
 * out of lists and are 404 like unknown ids, so a stranger can neither see nor approve them.
 */
import { clientSafe, ManifoldError } from "../errors/index.js";
import { JsonReply, jsonRoute, openRouteStream, REQUEST_ID_HEADER, sendJson, type AddRoute, type RouteContext } from "../component/index.js";
import { ANONYMOUS, callerIdentity, ownerKey, requestIdOf, sameIdentity, withRequestContext, type Identity } from "../context/index.js";
import { getTelemetry } from "../telemetry/index.js";
import { checkOwn, requireCheckpoint, type Coordinator, type Interrupted } from "./coordinator.js";
import {
  CHECKPOINT_STATUSES,
  type Checkpoint,
  type CheckpointStatus,
  type CheckpointStore,
  type CheckpointType,
  isCheckpointId,
  MAX_REASON,
} from "./store/index.js";

const TYPES: readonly CheckpointType[] = ["plan", "step", "error"];

function checkpointIdOf(value: unknown, pointer: string): string {
  if (typeof value !== "string" || value === "")
    throw new ManifoldError("INVALID_INPUT", "checkpoint_id is required", { details: [{ pointer, message: "is required: a string" }] });
  if (!isCheckpointId(value)) throw new ManifoldError("NOT_FOUND", `no checkpoint ${JSON.stringify(String(value).slice(0, 80))}`);
  return value;
}

function commandOf(body: Record<string, unknown>): {
  checkpointId: string;
  action: "approve" | "reject";
  reason?: string;
  parameters?: Record<string, unknown>;
} {
  const { checkpoint_id, action, reason, parameters, ...rest } = body;
  const isObject = typeof parameters === "object" && parameters !== null && !Array.isArray(parameters);
  const details = [
    ...(parameters === undefined || (isObject && action === "approve") ? [] : [{ pointer: "/parameters", message: "must be an object, with action approve" }]),
    ...(action === "approve" || action === "reject" ? [] : [{ pointer: "/action", message: "must be approve or reject" }]),
    ...(reason === undefined || (typeof reason === "string" && reason.length <= MAX_REASON)
      ? []
      : [{ pointer: "/reason", message: `must be a string of at most ${MAX_REASON} characters` }]),
    ...Object.keys(rest).map((key) => ({ pointer: `/${key.replaceAll("~", "~0").replaceAll("/", "~1")}`, message: "is not an allowed property" })),
  ];
  const checkpointId = checkpointIdOf(checkpoint_id, "/checkpoint_id");
  if (details.length > 0) throw new ManifoldError("INVALID_INPUT", "hitl command is not valid", { details });
  return {
    checkpointId,
    action: action as "approve" | "reject",
    ...(typeof reason === "string" ? { reason } : {}),
    ...(isObject ? { parameters: parameters as Record<string, unknown> } : {}),
  };
}

function getRoute(work: (ctx: RouteContext) => Promise<unknown>) {
  return async (ctx: RouteContext): Promise<void> => {
    ctx.set(REQUEST_ID_HEADER, requestIdOf(ctx.req));
    sendJson(ctx, 200, JSON.stringify(await work(ctx)));
  };
}

function listQuery(ctx: RouteContext): { status?: CheckpointStatus; type?: CheckpointType; limit?: number; cursor?: string } {
  const one = (name: string): string | undefined => {
    const value = ctx.query[name];
    return typeof value === "string" && value !== "" ? value : undefined;
  };
  const [status, type, limit, cursor] = [one("status"), one("type"), one("limit"), one("cursor")];
  const details = [
    ...(status === undefined || CHECKPOINT_STATUSES.includes(status as CheckpointStatus)
      ? []
      : [{ pointer: "/status", message: `must be one of ${CHECKPOINT_STATUSES.join(", ")}` }]),
    ...(type === undefined || TYPES.includes(type as CheckpointType) ? [] : [{ pointer: "/type", message: "must be plan, step or error" }]),
    ...(limit === undefined || (/^\d{1,3}$/.test(limit) && Number(limit) >= 1 && Number(limit) <= 100)
      ? []
      : [{ pointer: "/limit", message: "must be a whole number from 1 to 100" }]),
  ];
  if (details.length > 0) throw new ManifoldError("INVALID_INPUT", "checkpoint list query is not valid", { details });
  return {
    ...(status === undefined ? {} : { status: status as CheckpointStatus }),
    ...(type === undefined ? {} : { type: type as CheckpointType }),
    ...(limit === undefined ? {} : { limit: Number(limit) }),
    ...(cursor === undefined ? {} : { cursor }),
  };
}

export interface HitlRouteOptions {
  readonly store: CheckpointStore;
  /** This agent: its routes decide and list its own checkpoints only (a namespace's agents share the store). */
  readonly agentName: string;
  readonly coordinator: Coordinator;
  readonly bodyLimit: number;
  readonly heartbeatMs: number;
  readonly clock: () => number;
  /** Aborted when the agent stops. */
  readonly running: Set<AbortController>;
  /** Subjects who may decide any checkpoint. @defaultValue `MANIFOLD_HITL_APPROVERS` */
  readonly approvers?: ReadonlySet<string>;
}

/** `MANIFOLD_HITL_APPROVERS`: comma-separated subjects (agents as `agent:<name>`) who may see and decide every checkpoint. */
export function approversOf(env: Readonly<Record<string, string | undefined>> = process.env): ReadonlySet<string> {
  return new Set(
    (env["MANIFOLD_HITL_APPROVERS"] ?? "")
      .split(",")
      .map((subject) => subject.trim())
      .filter((subject) => subject !== ""),
  );
}

/** A checkpoint from before `requested_by` was recorded was made by nobody in particular: the anonymous user. */
function mayDecide(checkpoint: Checkpoint, caller: Identity, approvers: ReadonlySet<string>): boolean {
  return approvers.has(ownerKey(caller)) || sameIdentity(caller, checkpoint.requested_by ?? ANONYMOUS);
}

/** This agent's checkpoint, if the caller may decide it; else the same NOT_FOUND as an unknown id. One read of the store. */
async function requireDecidable(store: CheckpointStore, checkpointId: string, agentName: string, approvers: ReadonlySet<string>): Promise<Checkpoint> {
  const checkpoint = await requireCheckpoint(store, checkpointId);
  if (!mayDecide(checkpoint, callerIdentity(), approvers)) throw new ManifoldError("NOT_FOUND", `no checkpoint ${checkpointId}`);
  return checkOwn(checkpoint, agentName);
}

export function addHitlRoutes(add: AddRoute, options: HitlRouteOptions): void {
  const { store, agentName, bodyLimit } = options;
  const approvers = options.approvers ?? approversOf();
  add(
    "POST",
    "/hitl/command",
    jsonRoute((body) => command(options, approvers, body), { bodyLimit }),
  );
  add(
    "POST",
    "/hitl/resume/:checkpoint_id",
    jsonRoute(
      async (_body, { ctx, signal }) => {
        const checkpointId = checkpointIdOf(ctx.params["checkpoint_id"], "/checkpoint_id");
        await requireDecidable(store, checkpointId, agentName, approvers);
        return options.coordinator.resume(checkpointId, { signal, requestMode: "non_streaming" });
      },
      { bodyLimit },
    ),
  );
  add("GET", "/hitl/auto-resume/:checkpoint_id/stream", (ctx) => resumeStream(options, approvers, ctx));
  add(
    "GET",
    "/hitl/checkpoints",
    getRoute(async (ctx) => {
      // Filtered after the store's page (which may then be short, its cursor still right): the store indexes no requester.
      const page = await store.list({ ...listQuery(ctx), agent_name: agentName });
      const caller = callerIdentity();
      return { ...page, checkpoints: page.checkpoints.filter((checkpoint) => mayDecide(checkpoint, caller, approvers)) };
    }),
  );
  add(
    "GET",
    "/hitl/checkpoints/:checkpoint_id",
    getRoute(async (ctx) => requireDecidable(store, checkpointIdOf(ctx.params["checkpoint_id"], "/checkpoint_id"), agentName, approvers)),
  );
}

/** `POST /hitl/command`: one decision on one of this agent's checkpoints. */
async function command({ store, agentName, clock }: HitlRouteOptions, approvers: ReadonlySet<string>, body: Record<string, unknown>): Promise<unknown> {
  const { checkpointId, action, reason, parameters } = commandOf(body);
  await requireDecidable(store, checkpointId, agentName, approvers);
  const checkpoint = await store.command(checkpointId, action, {
    now: clock(),
    ...(reason === undefined ? {} : { reason }),
    ...(parameters === undefined ? {} : { parameters }),
  });
  return { success: true, checkpoint };
}

/** The resumed run keeps the checkpoint's original request id (its own request id is new) and conversation. */
/** `GET /hitl/auto-resume/<id>/stream`: refusals before the stream opens are envelopes; after, one `error` event; `done` or `checkpoint` once the run has finished. */
async function resumeStream(
  { store, coordinator, agentName, heartbeatMs, running }: HitlRouteOptions,
  approvers: ReadonlySet<string>,
  ctx: RouteContext,
): Promise<void> {
  const trace = getTelemetry().serverTraceOf(ctx.req);
  const requestId = requestIdOf(ctx.req, trace?.requestId);
  ctx.set(REQUEST_ID_HEADER, requestId);
  const checkpointId = checkpointIdOf(ctx.params["checkpoint_id"], "/checkpoint_id");
  // Before the stream opens every refusal is an envelope with its own status: unknown, another agent's, not approved.
  const checkpoint = await requireDecidable(store, checkpointId, agentName, approvers);
  if (checkpoint.status !== "approved" && checkpoint.status !== "expired_approved")
    throw new ManifoldError("CONFLICT", `checkpoint ${checkpointId} is ${checkpoint.status}; only an approved checkpoint resumes`, {
      details: [{ pointer: "/checkpoint_id", message: `status is ${checkpoint.status}`, status: checkpoint.status }],
    });
  const { stream, controller, end } = openRouteStream(ctx, { heartbeatMs, requestId });
  running.add(controller);
  try {
    const run = (): Promise<unknown> =>
      withRequestContext({ requestId }, () => coordinator.resume(checkpointId, { signal: controller.signal, requestMode: "streaming" }));
    const answer = await (trace === undefined ? run() : trace.run(run));
    if (answer instanceof JsonReply && answer.status === 202) {
      const next = answer.body as Interrupted;
      stream.send("checkpoint", { ...next, ...next.checkpoint.user_context });
    } else {
      const body = answer instanceof JsonReply ? answer.body : answer;
      // A session the checkpoint did not name was made for this answer: the spec's `session` event says so.
      const sessionId = (body as { session_id?: unknown } | null)?.session_id;
      const { conversation_id, session_id } = checkpoint.user_context;
      if (typeof sessionId === "string" && sessionId !== conversation_id && sessionId !== session_id)
        stream.send("session", { session_id: sessionId, created: true });
      stream.send("done", body);
    }
  } catch (error) {
    const failure = clientSafe(error, "the resumed run failed");
    stream.send("error", { code: failure.code, message: failure.message, retryable: false, request_id: requestId });
  } finally {
    running.delete(controller);
    end();
  }
}
