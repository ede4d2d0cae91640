/**
 * gen's first parse of many manifest texts, spread over worker threads (one per core): a worker parses a
 * batch with the loader's own parser and answers each text's value as JSON, and the loader then takes
 * those values as known (as from the parse cache), making a text's YAML tree only if a diagnostic needs a
 * position. A text a worker could not answer for (a diagnostic, a worker that failed) is parsed by the
 * loader as before, so what gen reports never depends on the workers.
 */
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";

/**
 * Below this much text to parse, starting workers (each loads the YAML parser) costs more than it saves:
 * cold gen of 133 KB of manifests took 1.12 s with the loader alone and 1.21 s with workers (medians of 4,
 * load ~3); of 1.6 MB, 4.9 s alone and 4.3 s with them (medians of 3).
 */
export const WORKER_MIN_BYTES = 512 * 1024;
/** Text per message: small enough to share the work out evenly, large enough that messages cost little. */
const BATCH_BYTES = 48 * 1024;

interface Item {
  readonly file: string;
  readonly text: string;
}

function batches(items: readonly Item[]): number[][] {
  const out: number[][] = [];
  let current: number[] = [];
  let bytes = 0;
  items.forEach((item, index) => {
    current.push(index);
    bytes += item.text.length;
    if (bytes >= BATCH_BYTES) {
      out.push(current);
      [current, bytes] = [[], 0];
    }
  });
  if (current.length > 0) out.push(current);
  return out;
}

/**
 * The compiled worker; from the sources (this module is .ts under tsx: `npm run gen`, the tests), a worker
 * that registers tsx's loader first, which a worker's own entry does not get from the flags it inherits.
 */
function startWorker(): Worker {
  if (!import.meta.url.endsWith(".ts")) return new Worker(new URL("./parse-worker.js", import.meta.url));
  const [api, script] = [import.meta.resolve("tsx/esm/api"), new URL("./parse-worker.ts", import.meta.url).href];
  return new Worker(`import(${JSON.stringify(api)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(script)}); });`, { eval: true });
}

/** Each item's value as JSON, or undefined where the loader must parse it itself. */
export async function parseInWorkers(items: readonly Item[], minBytes = WORKER_MIN_BYTES): Promise<(string | undefined)[]> {
  const answers: (string | undefined)[] = new Array(items.length).fill(undefined);
  const total = items.reduce((sum, item) => sum + item.text.length, 0);
  if (total < minBytes) return answers;
  const queue = batches(items);
  const count = Math.min(availableParallelism(), queue.length, 4);
  const run = (): Promise<void> =>
    new Promise((done) => {
      let worker: Worker;
      try {
        worker = startWorker();
      } catch {
        // No worker (a source run without tsx's API): the loader parses every text itself.
        done();
        return;
      }
      let batch: number[] | undefined;
      const next = (): void => {
        batch = queue.shift();
        if (batch === undefined) {
          void worker.terminate();
          done();
        } else worker.postMessage(batch.map((i) => items[i]));
      };
      worker.on("message", (results: (string | null)[]) => {
        batch?.forEach((index, k) => {
          answers[index] = results[k] ?? undefined;
        });
        next();
      });
      // A worker that fails leaves its texts to the loader.
      worker.on("error", () => done());
      worker.on("exit", () => done());
      next();
    });
  await Promise.all(Array.from({ length: count }, run));
  return answers;
}
