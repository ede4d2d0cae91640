/**
 * `manifold dead-letters`: the scheduled executor's dead-letter list on the configured store
 * (`REDIS_URL` / `MANIFOLD_REDIS_*`, namespace `MANIFOLD_REDIS_NAMESPACE`), one JSON entry per line
 * on stdout; `--replay TASK_ID` takes one out and queues its occurrence again.
 */
import type { CliIo } from "./cli-io.js";

export async function runDeadLetters(replay: string | undefined, io: CliIo): Promise<number> {
  const { createStore } = await import("../runtime/store/index.js");
  const { createDeadLetters, replayDeadLetter } = await import("../runtime/scheduling/index.js");
  const store = createStore({ log: () => undefined });
  try {
    if (store.kind === "memory") {
      io.err("manifold: dead letters live in Redis; set REDIS_URL (the embedded store is per process)\n");
      return 2;
    }
    const letters = createDeadLetters(store);
    if (replay !== undefined) {
      const id = await replayDeadLetter(store, letters, replay);
      if (id === undefined) {
        io.err(`manifold: no dead letter for task ${JSON.stringify(replay.slice(0, 200))}\n`);
        return 1;
      }
      io.out(`${JSON.stringify({ replayed: replay, task_id: id })}\n`);
      return 0;
    }
    const total = await letters.count();
    for (let offset = 0; offset < total; offset += 1000) {
      for (const letter of await letters.list({ offset, limit: 1000 })) io.out(`${JSON.stringify(letter)}\n`);
    }
    io.err(`manifold: ${total} dead letter${total === 1 ? "" : "s"}\n`);
    return 0;
  } finally {
    await store.close();
  }
}
