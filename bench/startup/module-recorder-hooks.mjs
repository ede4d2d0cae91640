/** Loader hooks of module-recorder.mjs: each module's URL, as it loads, appended to the log file. */
import { appendFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

let out;
export function initialize(data) {
  out = data.out;
}
export async function load(url, context, nextLoad) {
  if (url.startsWith("file:")) appendFileSync(out, `${fileURLToPath(url)}\n`);
  return nextLoad(url, context);
}
