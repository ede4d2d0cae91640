/**
 * The executor's dead letters over HTTP, for `manifold dead-letters` when the network runs on the
 * embedded store: that store lives in the scheduler's process, so another process (the CLI) can only
 * ask the scheduler. Served only then (on Redis the CLI reads the list itself), and only to callers
 * on this machine: a dead letter holds a schedule's instruction and input, whoever's agent set it.
 *
 * `GET /api/v1/dead-letters?offset&limit` → `{total, dead_letters}` (oldest first, at most 1,000 a page);
 * `POST /api/v1/dead-letters/replay {task_id}` → `{replayed, task_id}`, 404 when there is no such letter.
 */
import { isLoopbackAddress, jsonRoute, type AddRoute } from "../component/index.js";
import { ManifoldError } from "../errors/index.js";
import type { Store } from "../store/index.js";
import { replayDeadLetter, type DeadLetters } from "./dead-letters.js";

export const DEAD_LETTERS_PATH = "/api/v1/dead-letters";
export const MAX_DEAD_LETTER_PAGE = 1000;

function requireLocal(address: string | undefined): void {
  // A dual-stack socket reports an IPv4 caller as ::ffff:127.x.x.x.
  if (address === undefined || !isLoopbackAddress(address.replace(/^::ffff:/i, "")))
    throw new ManifoldError("FORBIDDEN", "dead letters are served to this machine only (loopback)");
}

function pageNumber(value: unknown, name: string, fallback: number, max: number): number {
  if (value === undefined || value === "") return fallback;
  const n = typeof value === "string" && /^\d{1,9}$/.test(value) ? Number(value) : Number.NaN;
  if (!(n <= max))
    throw new ManifoldError("INVALID_INPUT", `${name} must be an integer from 0 to ${max}`, { details: [{ pointer: `/${name}`, message: `0 to ${max}` }] });
  return n;
}

export function addDeadLetterRoutes(add: AddRoute, { store, letters, bodyLimit }: { store: Store; letters: DeadLetters; bodyLimit: number }): void {
  add(
    "GET",
    DEAD_LETTERS_PATH,
    jsonRoute(
      async (_body, { ctx }) => {
        requireLocal(ctx.req.socket.remoteAddress);
        const offset = pageNumber(ctx.query["offset"], "offset", 0, 1_000_000_000);
        const limit = pageNumber(ctx.query["limit"], "limit", MAX_DEAD_LETTER_PAGE, MAX_DEAD_LETTER_PAGE);
        return { total: await letters.count(), dead_letters: await letters.list({ offset, limit }) };
      },
      { bodyLimit },
    ),
  );
  add(
    "POST",
    `${DEAD_LETTERS_PATH}/replay`,
    jsonRoute(
      async (body, { ctx }) => {
        requireLocal(ctx.req.socket.remoteAddress);
        const taskId = body["task_id"];
        if (typeof taskId !== "string" || taskId === "" || taskId.length > 512)
          throw new ManifoldError("INVALID_INPUT", "task_id must be a non-empty string", {
            details: [{ pointer: "/task_id", message: "a dead letter's task id" }],
          });
        const id = await replayDeadLetter(store, letters, taskId);
        if (id === undefined) throw new ManifoldError("NOT_FOUND", `no dead letter for task ${JSON.stringify(taskId.slice(0, 200))}`);
        return { replayed: taskId, task_id: id };
      },
      { bodyLimit },
    ),
  );
}
