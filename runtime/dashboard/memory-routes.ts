/** The Memory view's routes: domains → users → sessions → one session's messages. */
import type { AddRoute, RouteContext } from "../component/index.js";
import { DEFAULT_PAGE, isSessionId, MAX_PAGE, USER_ID } from "../chat/index.js";
import { ManifoldError } from "../errors/index.js";
import type { MemoryDomains } from "./memory.js";
import { limitOf, queryOf, sendValue, type RouteWrapper } from "./http.js";

/** Deep pages are refused: the index is read from its newest end, so a huge offset costs the store. */
const MAX_OFFSET = 10_000;

function domainOf(ctx: RouteContext, memory: MemoryDomains) {
  return memory.get(queryOf(ctx, "domain") ?? memory.names[0]!);
}

function userOf(ctx: RouteContext): string {
  const user = queryOf(ctx, "user");
  if (user === undefined || !USER_ID.test(user)) {
    throw new ManifoldError("INVALID_INPUT", "user must be a user id: 1-128 letters, digits or _.@:+-", {
      details: [{ pointer: "/user", message: "a user id" }],
    });
  }
  return user;
}

function offsetOf(ctx: RouteContext): number {
  const text = queryOf(ctx, "offset");
  if (text === undefined) return 0;
  const value = /^\d{1,6}$/.test(text) ? Number(text) : Number.NaN;
  if (!(value >= 0 && value <= MAX_OFFSET))
    throw new ManifoldError("INVALID_INPUT", `offset must be a whole number from 0 to ${MAX_OFFSET}`, {
      details: [{ pointer: "/offset", message: `from 0 to ${MAX_OFFSET}` }],
    });
  return value;
}

export function addMemoryRoutes(add: AddRoute, memory: MemoryDomains, dataRoute: RouteWrapper): void {
  add(
    "GET",
    "/api/memory/users",
    dataRoute(async (ctx) => {
      const domain = domainOf(ctx, memory);
      sendValue(ctx, { domain: domain.name, domains: memory.names, ...(await domain.users()) });
    }),
  );

  add(
    "GET",
    "/api/memory/sessions",
    dataRoute(async (ctx) => {
      const domain = domainOf(ctx, memory);
      const user = userOf(ctx);
      const page = { offset: offsetOf(ctx), limit: limitOf(ctx, DEFAULT_PAGE, MAX_PAGE) };
      sendValue(ctx, { domain: domain.name, user, ...page, sessions: await domain.sessions.list(user, page) });
    }),
  );

  add(
    "GET",
    "/api/memory/sessions/:session_id",
    dataRoute(async (ctx) => {
      const domain = domainOf(ctx, memory);
      const id = ctx.params["session_id"] ?? "";
      const session = isSessionId(id) ? await domain.sessions.get(id) : undefined;
      if (session === undefined) throw new ManifoldError("NOT_FOUND", "no session with that id (it may have expired)");
      sendValue(ctx, { domain: domain.name, session });
    }),
  );
}
