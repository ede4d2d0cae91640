/**
 * The Memory view's routes. Users: who has facts or sessions → a user's facts and summary, sessions
 * → one session's messages. Agent domains: the domains offered → a domain's episodes (newest first,
 * paged, by entity), its activity digest and knowledge. Facts' values are shown to the dashboard's
 * viewer (that is the view's purpose) and never logged; no error message repeats one.
 */
import type { AddRoute, RouteContext } from "../component/index.js";
import { DEFAULT_PAGE, isSessionId, MAX_PAGE } from "../chat/index.js";
import { ManifoldError } from "../errors/index.js";
import type { Episode } from "../memory/index.js";
import type { MemorySources } from "./memory.js";
import { limitOf, queryOf, sendValue, type RouteWrapper } from "./http.js";

/** Deep pages are refused: the index is read from its newest end, so a huge offset costs the store. */
const MAX_OFFSET = 10_000;
/** Episodes are read newest first from the start of the list: a page lies within the newest this many. */
export const EPISODE_WINDOW = 200;
const EPISODE_PAGE = 20;
const MAX_EPISODE_PAGE = 50;
const KNOWLEDGE_LIMIT = 50;
/** An event's text in a list; the whole episode is one request away. */
const EVENT_PREVIEW = 300;
/** Entities are lowercase tags (`city:lisbon`): a bounded printable string, no control characters. */
const ENTITY = /^[^\s\p{Cc}][^\p{Cc}]{0,127}$/u;

function invalid(name: string, message: string): ManifoldError {
  return new ManifoldError("INVALID_INPUT", `${name} must be ${message}`, { details: [{ pointer: `/${name}`, message }] });
}

/** An owner key (`ownerKey`: a token's subject, a trusted header's user id, `agent:<name>`): 1-256 characters, no control characters. */
const OWNER = /^[^\p{Cc}]{1,256}$/u;

function userOf(ctx: RouteContext): string {
  const user = queryOf(ctx, "user");
  if (user === undefined || !OWNER.test(user)) throw invalid("user", "a user id: 1-256 characters without control characters");
  return user;
}

function offsetOf(ctx: RouteContext, max: number): number {
  const text = queryOf(ctx, "offset");
  if (text === undefined) return 0;
  const value = /^\d{1,6}$/.test(text) ? Number(text) : Number.NaN;
  if (!(value >= 0 && value <= max)) throw invalid("offset", `a whole number from 0 to ${max}`);
  return value;
}

function entityOf(ctx: RouteContext): string | undefined {
  const entity = queryOf(ctx, "entity")?.trim().toLowerCase();
  if (entity === undefined || entity === "") return undefined;
  if (!ENTITY.test(entity)) throw invalid("entity", "1-128 characters without control characters");
  return entity;
}

async function domainOf(ctx: RouteContext, memory: MemorySources): Promise<string> {
  const asked = queryOf(ctx, "domain");
  if (asked !== undefined) return asked;
  const first = (await memory.domains()).domains[0];
  if (first === undefined) throw new ManifoldError("NOT_FOUND", "no memory domain: no agent is registered and MANIFOLD_VIEWER_MEMORY_DOMAINS is unset");
  return first;
}

/** An episode for a list: its events' texts cut. */
export function episodePreview(episode: Episode): Episode {
  return {
    ...episode,
    events: episode.events.map((event) => (event.text.length > EVENT_PREVIEW ? { ...event, text: `${event.text.slice(0, EVENT_PREVIEW)}…` } : event)),
  };
}

function addUserRoutes(add: AddRoute, memory: MemorySources, dataRoute: RouteWrapper): void {
  add(
    "GET",
    "/api/memory/users",
    dataRoute(async (ctx) => sendValue(ctx, await memory.users())),
  );

  add(
    "GET",
    "/api/memory/facts",
    dataRoute(async (ctx) => {
      const user = userOf(ctx);
      const [facts, summary, revision] = await Promise.all([memory.facts.list(user), memory.facts.summary(user), memory.facts.revision(user)]);
      sendValue(ctx, { user, revision, facts, summary: summary ?? null, summary_stale: summary !== undefined && summary.revision !== revision });
    }),
  );

  add(
    "GET",
    "/api/memory/sessions",
    dataRoute(async (ctx) => {
      const user = userOf(ctx);
      const page = { offset: offsetOf(ctx, MAX_OFFSET), limit: limitOf(ctx, DEFAULT_PAGE, MAX_PAGE) };
      sendValue(ctx, { user, ...page, sessions: await memory.sessions.list(user, page) });
    }),
  );

  add(
    "GET",
    "/api/memory/sessions/:session_id",
    dataRoute(async (ctx) => {
      const id = ctx.params["session_id"] ?? "";
      const session = isSessionId(id) ? await memory.sessions.get(id) : undefined;
      if (session === undefined) throw new ManifoldError("NOT_FOUND", "no session with that id (it may have expired)");
      sendValue(ctx, { session });
    }),
  );
}

function addDomainRoutes(add: AddRoute, memory: MemorySources, dataRoute: RouteWrapper): void {
  add(
    "GET",
    "/api/memory/domains",
    dataRoute(async (ctx) => sendValue(ctx, await memory.domains())),
  );

  add(
    "GET",
    "/api/memory/episodes",
    dataRoute(async (ctx) => {
      const domain = await domainOf(ctx, memory);
      const entity = entityOf(ctx);
      const limit = limitOf(ctx, EPISODE_PAGE, MAX_EPISODE_PAGE);
      const offset = offsetOf(ctx, EPISODE_WINDOW - limit);
      const store = await memory.episodes(domain);
      // One more than the page says whether there is a next one.
      const read = await store.recent({ limit: offset + limit + 1, ...(entity === undefined ? {} : { entity }) });
      const episodes = read.slice(offset, offset + limit).map(episodePreview);
      const more = read.length > offset + limit && offset + limit < EPISODE_WINDOW;
      sendValue(ctx, { domain, entity: entity ?? null, offset, limit, more, window: EPISODE_WINDOW, episodes });
    }),
  );

  add(
    "GET",
    "/api/memory/episodes/:episode_id",
    dataRoute(async (ctx) => {
      const domain = await domainOf(ctx, memory);
      const id = ctx.params["episode_id"] ?? "";
      const store = await memory.episodes(domain);
      // A malformed id names no episode: answered like an unknown one.
      const episode = await store.get(id).catch((error: unknown) => {
        if (error instanceof ManifoldError && error.code === "INVALID_INPUT") return undefined;
        throw error;
      });
      if (episode === undefined) throw new ManifoldError("NOT_FOUND", "no episode with that id in the domain (it may have been swept)");
      sendValue(ctx, { domain, episode });
    }),
  );

  add(
    "GET",
    "/api/memory/knowledge",
    dataRoute(async (ctx) => {
      const domain = await domainOf(ctx, memory);
      const entity = entityOf(ctx);
      const limit = limitOf(ctx, KNOWLEDGE_LIMIT, KNOWLEDGE_LIMIT);
      const store = await memory.episodes(domain);
      const [digest, knowledge] = await Promise.all([store.digest(), store.knowledge({ limit, ...(entity === undefined ? {} : { entity }) })]);
      sendValue(ctx, { domain, entity: entity ?? null, digest: digest ?? null, knowledge });
    }),
  );
}

export function addMemoryRoutes(add: AddRoute, memory: MemorySources, dataRoute: RouteWrapper): void {
  addUserRoutes(add, memory, dataRoute);
  addDomainRoutes(add, memory, dataRoute);
}
