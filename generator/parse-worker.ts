/**
 * One of gen's parse workers (parse-workers.ts): each message is a batch of manifest texts; the answer is,
 * for each, the JSON of its value or null (a diagnostic, or a value JSON cannot hold: the loader parses it).
 */
import { parentPort } from "node:worker_threads";
import { cleanValueJson } from "./parse-values.js";

parentPort?.on("message", (batch: readonly { readonly file: string; readonly text: string }[]) => {
  parentPort?.postMessage(batch.map(({ file, text }) => cleanValueJson(file, text) ?? null));
});
