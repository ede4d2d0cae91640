/** The Approvals view's routes: the checkpoint list and `/api/hitl/command` (the spec's), proxied to the owning agent. */
import { jsonRoute, type AddRoute, type RouteContext } from "../component/index.js";
import type { Registry } from "../discovery/index.js";
import { ManifoldError } from "../errors/index.js";
import { CHECKPOINT_STATUSES, type CheckpointStatus, type CheckpointStore, type CheckpointType } from "../hitl/index.js";
import type { Caller } from "../outbound/index.js";
import { CHECKPOINT_TYPES, checkpointView, parseCommand, proxyCommand } from "./hitl.js";
import { limitOf, oneOf, queryOf, sendValue, type RouteWrapper } from "./http.js";

export interface HitlRouteSources {
  /** Where commands find the owning agent: read fresh. */
  readonly registry: Registry;
  readonly checkpoints: CheckpointStore;
  readonly caller: Caller;
  /** The one agent this dashboard is scoped to, if any. */
  readonly agentName: string | undefined;
  readonly bodyLimit: number;
  /** How long a resumed run may take to answer an approval. */
  readonly resumeTimeoutMs: number;
  readonly now: () => number;
}

/** A command from another origin is refused: a page elsewhere must not approve a payment through the user's browser. */
export function refuseCrossOrigin(ctx: RouteContext): void {
  const origin = ctx.get("Origin");
  const site = ctx.get("Sec-Fetch-Site");
  let sameOrigin = site === "" || site === "same-origin" || site === "none";
  if (origin !== "" && origin !== "null") {
    try {
      sameOrigin &&= new URL(origin).host === ctx.host;
    } catch {
      sameOrigin = false;
    }
  } else if (origin === "null") sameOrigin = false;
  if (!sameOrigin) throw new ManifoldError("FORBIDDEN", "checkpoint commands are accepted only from the dashboard's own pages");
}

export function addHitlRoutes(add: AddRoute, sources: HitlRouteSources, dataRoute: RouteWrapper): void {
  const { checkpoints, agentName } = sources;
  add(
    "GET",
    "/api/hitl/checkpoints",
    dataRoute(async (ctx) => {
      const type = oneOf<CheckpointType>(ctx, "type", CHECKPOINT_TYPES);
      const status = oneOf<CheckpointStatus | "all">(ctx, "status", [...CHECKPOINT_STATUSES, "all"]) ?? "pending";
      const limit = limitOf(ctx, 50, 100);
      const cursor = queryOf(ctx, "cursor");
      // A dashboard scoped to one agent lists its checkpoints unless asked for every agent's (`agent=all`).
      const asked = queryOf(ctx, "agent");
      const agent = asked === "all" ? undefined : (asked ?? agentName);
      const page = await checkpoints.list({
        ...(agent === undefined ? {} : { agent_name: agent }),
        limit,
        ...(status === "all" ? {} : { status }),
        ...(type === undefined ? {} : { type }),
        ...(cursor === undefined ? {} : { cursor }),
      });
      const now = sources.now();
      sendValue(ctx, {
        checkpoints: page.checkpoints.map((checkpoint) => checkpointView(checkpoint, agentName, now)),
        ...(page.next_cursor === undefined ? {} : { next_cursor: page.next_cursor }),
      });
    }),
  );

  const command = jsonRoute(
    async (body) =>
      proxyCommand(parseCommand(body), {
        checkpoints,
        registry: sources.registry,
        caller: sources.caller,
        scope: agentName,
        resumeTimeoutMs: sources.resumeTimeoutMs,
        now: sources.now,
      }),
    { bodyLimit: sources.bodyLimit },
  );
  add(
    "POST",
    "/api/hitl/command",
    dataRoute(async (ctx) => {
      refuseCrossOrigin(ctx);
      await command(ctx);
    }),
  );
}
