/**
 * Loader hooks of module-recorder.mjs: each module's URL, as it loads, appended to the log file; with an
 * importers file, each resolved import too, as `<module path>\t<importer path>` (ES imports, static and dynamic).
 */
import { appendFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

let out;
let importers;
export function initialize(data) {
  out = data.out;
  importers = data.importers;
}
export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  if (importers && resolved.url.startsWith("file:") && context.parentURL?.startsWith("file:"))
    appendFileSync(importers, `${fileURLToPath(resolved.url)}\t${fileURLToPath(context.parentURL)}\n`);
  return resolved;
}
export async function load(url, context, nextLoad) {
  if (url.startsWith("file:")) appendFileSync(out, `${fileURLToPath(url)}\n`);
  return nextLoad(url, context);
}
