/**
 * `npm start`: the example network from its build, building first only when a source is newer than the last build.
 * Plain JavaScript so plain node runs it: the whole point is to skip tsx (~5 s of on-the-fly loading on a 2-core
 * machine) and tsc's own no-op check (~3-7 s). Deciding costs one scan of the sources' mtimes (~550 files, tens of ms).
 */
import { spawnSync } from "node:child_process";
import { utimesSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { entryOf, needsBuild, stampOf } from "./start-freshness.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const stamp = stampOf(root);
const entry = entryOf(root);

if (needsBuild(root)) {
  const began = new Date();
  const build = spawnSync("npm", ["run", "build:start", "--silent"], { cwd: root, stdio: "inherit", shell: process.platform === "win32" });
  if (build.status !== 0) process.exit(build.status ?? 1);
  // Stamped with the time the build began: a file saved during the build makes the next start build again.
  writeFileSync(stamp, "");
  utimesSync(stamp, began, began);
}
try {
  await import(pathToFileURL(entry).href);
} catch (error) {
  // A start-up refusal (a port in use, a bad variable: a Manifold error, or a settings error the runtime
  // cut to one line) says what to do: that line, not node's report of an uncaught rejection around it.
  // Anything else is a bug: thrown as is.
  // Loaded only here: by now the build is there, and its errors module is the one the network threw from.
  const manifold = (await import("agent-manifold/runtime")).isManifoldError(error);
  const setting = (error instanceof RangeError || error instanceof TypeError) && !String(error.stack).includes("\n");
  if (!manifold && !setting) throw error;
  process.stderr.write(`npm start: ${manifold ? error.message : error.stack}\n`);
  process.exit(1);
}
