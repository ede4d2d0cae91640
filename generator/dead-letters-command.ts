/**
 * `manifold dead-letters`: the scheduled executor's dead-letter list, one JSON entry per line on
 * stdout; `--replay TASK_ID` takes one out and queues its occurrence again. With Redis configured
 * (`REDIS_URL` / `MANIFOLD_REDIS_*`, namespace `MANIFOLD_REDIS_NAMESPACE`) it reads the list there.
 * Without, the list lives in the embedded store of the scheduler's process, so it asks that
 * scheduler over HTTP (`--url`, default the shipped scheduler's port on this machine, where
 * `npm start` and `manifold scheduler` serve it).
 */
import type { CliIo } from "./cli-io.js";

/** Where `npm start` and `manifold scheduler` serve the scheduler (its shipped manifest's port). */
export const DEFAULT_SCHEDULER_URL = "http://127.0.0.1:8099";
/** Exit code when there is nowhere to read dead letters from: no Redis and no scheduler answering. */
export const EXIT_NO_SOURCE = 3;

export async function runDeadLetters(replay: string | undefined, io: CliIo, url?: string): Promise<number> {
  const { createStore } = await import("../runtime/store/index.js");
  const store = createStore({ log: () => undefined });
  if (store.kind === "memory") {
    await store.close();
    return viaScheduler(replay, io, url ?? DEFAULT_SCHEDULER_URL, url !== undefined);
  }
  const { createDeadLetters, replayDeadLetter } = await import("../runtime/scheduling/index.js");
  try {
    const letters = createDeadLetters(store);
    if (replay !== undefined) {
      const id = await replayDeadLetter(store, letters, replay);
      if (id === undefined) return noLetter(replay, io);
      io.out(`${JSON.stringify({ replayed: replay, task_id: id })}\n`);
      return 0;
    }
    const total = await letters.count();
    for (let offset = 0; offset < total; offset += 1000) {
      for (const letter of await letters.list({ offset, limit: 1000 })) io.out(`${JSON.stringify(letter)}\n`);
    }
    return counted(total, io);
  } finally {
    await store.close();
  }
}

function noLetter(replay: string, io: CliIo): number {
  io.err(`manifold: no dead letter for task ${JSON.stringify(replay.slice(0, 200))}\n`);
  return 1;
}

function counted(total: number, io: CliIo): number {
  io.err(`manifold: ${total} dead letter${total === 1 ? "" : "s"}\n`);
  return 0;
}

const PAGE = 1000;
/** Most pages read: the executor keeps at most 10,000 letters by default; a bigger list is cut, and says so. */
const MAX_PAGES = 100;

/** A JSON answer of the scheduler, or a one-line reason it could not be had. */
async function ask(base: string, path: string, init?: RequestInit): Promise<{ status: number; body: Record<string, unknown> } | string> {
  try {
    const response = await fetch(new URL(path, base), { ...init, signal: AbortSignal.timeout(10_000) });
    const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
    return { status: response.status, body };
  } catch {
    return "unreachable";
  }
}

async function viaScheduler(replay: string | undefined, io: CliIo, base: string, given: boolean): Promise<number> {
  if (!/^https?:\/\/[^\s]+$/.test(base)) {
    io.err(`manifold: --url must be the scheduler's http:// or https:// address, not ${JSON.stringify(base.slice(0, 200))}\n`);
    return 2;
  }
  const first =
    replay === undefined
      ? await ask(base, `/api/v1/dead-letters?offset=0&limit=${PAGE}`)
      : await ask(base, "/api/v1/dead-letters/replay", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ task_id: replay }),
        });
  if (replay !== undefined && typeof first !== "string" && first.status === 404 && errorOf(first.body).message.startsWith("no dead letter"))
    return noLetter(replay, io);
  const failure = answerFailure(first, base, given);
  if (failure !== undefined) {
    io.err(`manifold: ${failure}\n`);
    return EXIT_NO_SOURCE;
  }
  const { body } = first as { body: Record<string, unknown> };
  if (replay !== undefined) {
    io.out(`${JSON.stringify({ replayed: body["replayed"], task_id: body["task_id"] })}\n`);
    return 0;
  }
  const total = Number(body["total"]);
  let letters = body["dead_letters"] as unknown[];
  for (let page = 1; ; page += 1) {
    for (const letter of letters) io.out(`${JSON.stringify(letter)}\n`);
    if (letters.length < PAGE || page >= MAX_PAGES) break;
    const next = await ask(base, `/api/v1/dead-letters?offset=${page * PAGE}&limit=${PAGE}`);
    if (typeof next === "string" || next.status !== 200) break;
    letters = next.body["dead_letters"] as unknown[];
  }
  return counted(total, io);
}

/** The error envelope's code and message, as strings (empty when absent): the answer is another process's. */
function errorOf(body: Record<string, unknown>): { code: string; message: string } {
  const error = typeof body["error"] === "object" && body["error"] !== null ? (body["error"] as Record<string, unknown>) : {};
  return { code: typeof error["code"] === "string" ? error["code"] : "", message: typeof error["message"] === "string" ? error["message"] : "" };
}

/** Why the scheduler's answer is not the dead letters, in one line that says what to do; undefined when it is. */
function answerFailure(answer: Awaited<ReturnType<typeof ask>>, base: string, given: boolean): string | undefined {
  const fix =
    "set REDIS_URL to read them from Redis, or pass --url with the address of a running scheduler on the embedded store (npm start serves one at the default)";
  if (typeof answer === "string") return `no Redis configured and no scheduler answered at ${base}${given ? "" : " (the default)"}: ${fix}`;
  if (answer.status === 200 && (Array.isArray(answer.body["dead_letters"]) || typeof answer.body["task_id"] === "string")) return undefined;
  const code = errorOf(answer.body).code || `HTTP ${answer.status}`;
  return `the service at ${base} did not serve dead letters (${code}): it is not a scheduler on the embedded store; ${fix}`;
}
