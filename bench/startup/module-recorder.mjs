/**
 * Records every module a node process loads, ES and CommonJS, one absolute path or URL per line, into the
 * file MANIFOLD_MODULE_LOG names: `node --import ./bench/startup/module-recorder.mjs <entry>`. Used by the
 * start-up bench (module counts before/after) and by test/architecture/lazy-features.test.ts (which features
 * a plain tool loads). Appends synchronously so a process killed after its first healthy /health has written all.
 * MANIFOLD_MODULE_IMPORTERS=<file> also records who imports what (ES imports, and CommonJS requires from CommonJS),
 * one `<module>\t<importer>` line each: bench/startup/importers.ts reads it.
 */
import { appendFileSync } from "node:fs";
import Module, { register } from "node:module";
import { fileURLToPath } from "node:url";

const out = process.env["MANIFOLD_MODULE_LOG"];
if (out) {
  // ES modules (and CommonJS an ES module imports) pass the loader's hooks; they run on the loader thread.
  const importers = process.env["MANIFOLD_MODULE_IMPORTERS"];
  register("./module-recorder-hooks.mjs", import.meta.url, { data: { out, importers } });
  // CommonJS required from CommonJS never reaches those hooks: every compiled file passes here.
  const compile = Module.prototype._compile;
  Module.prototype._compile = function (content, filename) {
    appendFileSync(out, `${filename}\n`);
    if (importers && this.parent?.filename) appendFileSync(importers, `${filename}\t${this.parent.filename}\n`);
    return compile.call(this, content, filename);
  };
}
export const toPath = (url) => (url.startsWith("file:") ? fileURLToPath(url) : url);
