/**
 * Whether `npm start` must build before it runs the example: plain JavaScript (see start-example.mjs), apart
 * so a test can drive the decision on a folder of its own. Deciding costs one scan of the sources' mtimes.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

const SOURCES = ["generator", "runtime", "generated", join("manifests", "travel")];
const CONFIGS = ["package.json", "tsconfig.json", "tsconfig.build.json", "tsconfig.example.json", "manifest.schema.json"];

/** The stamp `npm start` leaves after a build; its mtime is the time that build began. */
export const stampOf = (root) => join(root, "dist-example", ".start-stamp");
/** What `npm start` imports: the example's entry. */
export const entryOf = (root) => join(root, "dist-example", "manifests", "travel", "start.js");
// The example imports the package's runtime from dist/, which `npm run build:start` makes beside dist-example/:
// a dist/ removed on its own (`rm -rf dist`) must be built again, not met as ERR_MODULE_NOT_FOUND.
const runtimeOf = (root) => join(root, "dist", "runtime", "index.js");

/** Whether any source, the chat page or a build config changed after `since` (ms). Bounded by the trees' size. */
function changedSince(root, since) {
  if (CONFIGS.some((file) => existsSync(join(root, file)) && statSync(join(root, file)).mtimeMs > since)) return true;
  for (const folder of SOURCES) {
    for (const e of readdirSync(join(root, folder), { recursive: true, withFileTypes: true })) {
      if (e.isFile() && statSync(join(e.parentPath, e.name)).mtimeMs > since) return true;
    }
  }
  return false;
}

/** True when a build output is missing or a source is newer than the last build's start. */
export function needsBuild(root) {
  const stamp = stampOf(root);
  if (![stamp, entryOf(root), runtimeOf(root)].every((file) => existsSync(file))) return true;
  return changedSince(root, statSync(stamp).mtimeMs);
}
