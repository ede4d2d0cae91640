/**
 * `/memory/facts`: a user lists and deletes what the agent remembers about them, and only that. Each
 * route acts on the caller's own facts (its proven identity, context/identity.ts: a verified token's
 * subject, or `X-User-ID` behind a trusted gateway); an anonymous caller is refused with 401, since
 * anonymous is everyone at once and has no memory.
 *
 * - `GET /memory/facts` → `{user, facts, summary?}` (the summary only when made from the current facts);
 * - `DELETE /memory/facts/<key>` → 204, or 404 `NOT_FOUND` when the caller has no such fact;
 * - `DELETE /memory/facts` → `{deleted: n}`.
 *
 * A delete removes the fact from the store, recall's held facts and the vector side at once.
 */
import { REQUEST_ID_HEADER, sendJson, type AddRoute, type RouteContext } from "../component/index.js";
import { callerIdentity, ownerKey, requestIdOf } from "../context/index.js";
import { ManifoldError } from "../errors/index.js";
import type { UserMemory } from "./user/index.js";
import type { FactStore } from "./user/store/types.js";

/** The caller's owner key; 401 for a caller nothing identifies. */
function owner(): string {
  const identity = callerIdentity();
  if (identity.via === "anonymous")
    throw new ManifoldError("UNAUTHORIZED", "memory belongs to an identified user: send a verified bearer token (or X-User-ID from a trusted gateway)");
  return ownerKey(identity);
}

function route(work: (ctx: RouteContext) => Promise<unknown>) {
  return async (ctx: RouteContext): Promise<void> => {
    ctx.set(REQUEST_ID_HEADER, requestIdOf(ctx.req));
    const body = await work(ctx);
    if (body === undefined) ctx.status = 204;
    else sendJson(ctx, 200, JSON.stringify(body));
  };
}

export function addMemoryRoutes(add: AddRoute, { facts, memory }: { readonly facts: FactStore; readonly memory: UserMemory }): void {
  add(
    "GET",
    "/memory/facts",
    route(async () => {
      const user = owner();
      const [revision, summary] = await Promise.all([facts.revision(user), facts.summary(user)]);
      const list = await facts.list(user);
      return { user, facts: list, ...(summary !== undefined && summary.revision === revision ? { summary } : {}) };
    }),
  );
  add(
    "DELETE",
    "/memory/facts/:key",
    route(async (ctx) => {
      const user = owner();
      const key = ctx.params["key"] ?? "";
      if (!(await memory.remove(user, key))) throw new ManifoldError("NOT_FOUND", `no fact ${JSON.stringify(key.slice(0, 64))}`);
      return undefined;
    }),
  );
  add(
    "DELETE",
    "/memory/facts",
    route(async () => ({ deleted: await memory.clear(owner()) })),
  );
}
