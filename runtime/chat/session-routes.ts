/**
 * The direct session endpoints: create, read, history, list, retitle, delete. An unknown or expired
 * session is 404 `NOT_FOUND`; a malformed id never reaches a store key (it is simply not found).
 * Each session belongs to the caller that made it (requests.ts `ownerOf`): another caller's session
 * is the same 404 as a missing one, so ids cannot be probed for existence.
 */
import { jsonRoute, REQUEST_ID_HEADER, sendJson, type AddRoute, type RouteContext } from "../component/index.js";
import { requestIdOf } from "../context/index.js";
import { ManifoldError } from "../errors/index.js";
import { newId } from "./ids.js";
import { isOwnSession, metadataOf, ownerOf, pageOf, sessionIdOf, titleOf } from "./requests.js";
import { isSessionId, SESSION_TTL_MS, type ChatSession, type ChatSessionStore } from "./store/index.js";

const notFound = (id: string): ManifoldError => new ManifoldError("NOT_FOUND", `no chat session ${JSON.stringify(id.slice(0, 64))} (unknown or expired)`);

/** A GET answered with JSON, with the request id echoed like every other route. */
function getRoute(work: (ctx: RouteContext) => Promise<unknown>) {
  return async (ctx: RouteContext): Promise<void> => {
    ctx.set(REQUEST_ID_HEADER, requestIdOf(ctx.req));
    sendJson(ctx, 200, JSON.stringify(await work(ctx)));
  };
}

/** The caller's own session with that id, or 404 `NOT_FOUND`; a malformed id is not looked up. */
async function findSession(sessions: ChatSessionStore, id: unknown): Promise<ChatSession> {
  const text = typeof id === "string" ? id : "";
  const session = isSessionId(text) ? await sessions.get(text) : undefined;
  if (session === undefined || !isOwnSession(session)) throw notFound(text);
  return session;
}

/** The reads: one session, its history, and a user's sessions. */
function addSessionReads(add: AddRoute, sessions: ChatSessionStore): void {
  add(
    "GET",
    "/chat/session/:id",
    getRoute(async (ctx) => {
      const session = await findSession(sessions, ctx.params["id"]);
      return {
        session_id: session.id,
        created_at: session.created_at,
        updated_at: session.updated_at,
        message_count: session.messages.length,
        metadata: session.metadata,
      };
    }),
  );

  add(
    "GET",
    "/chat/session/:id/history",
    getRoute(async (ctx) => {
      const session = await findSession(sessions, ctx.params["id"]);
      return { session_id: session.id, messages: session.messages, count: session.messages.length };
    }),
  );

  add(
    "GET",
    "/chat/sessions",
    getRoute(async (ctx) => {
      const userId = ownerOf(true);
      const page = pageOf(ctx);
      const list = await sessions.list(userId, page);
      return { sessions: list, count: list.length, offset: page.offset, limit: page.limit };
    }),
  );
}

/** The changes to an existing session: retitle and delete. */
function addSessionChanges(add: AddRoute, sessions: ChatSessionStore, bodyLimit: number): void {
  add(
    "PUT",
    "/chat/session/:id/title",
    jsonRoute(
      async (body, { ctx }) => {
        const id = ctx.params["id"] ?? "";
        const title = titleOf(body);
        const now = Date.now();
        await findSession(sessions, id);
        if (!(await sessions.setTitle(id, title, now))) throw notFound(id);
        return { session_id: id, title, updated_at: new Date(now).toISOString() };
      },
      { bodyLimit },
    ),
  );

  add(
    "POST",
    "/chat/session/delete",
    jsonRoute(
      async (body) => {
        const id = sessionIdOf(body) ?? "";
        await findSession(sessions, id);
        if (!(await sessions.delete(id))) throw notFound(id);
        return { session_id: id, deleted: true };
      },
      { bodyLimit },
    ),
  );
}

export function addSessionRoutes(
  add: AddRoute,
  sessions: ChatSessionStore,
  { bodyLimit, ttlMs = SESSION_TTL_MS }: { bodyLimit: number; ttlMs?: number },
): void {
  add(
    "POST",
    "/chat/session",
    jsonRoute(
      async (body) => {
        const now = Date.now();
        const session = await sessions.create({ id: newId(), userId: ownerOf(false), metadata: metadataOf(body), now });
        return { session_id: session.id, created_at: session.created_at, expires_at: new Date(now + ttlMs).toISOString() };
      },
      { bodyLimit },
    ),
  );
  addSessionReads(add, sessions);
  addSessionChanges(add, sessions, bodyLimit);
}
