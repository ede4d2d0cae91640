#!/usr/bin/env node
// `npm create agent-manifold@latest <dir> -- --template minimal|agent|full` runs this: it hands its
// arguments to `manifold init` of the agent-manifold it depends on, so the scaffold and its versions are
// that package's, and this one never changes with them.
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

const require = createRequire(import.meta.url);
const manifold = join(dirname(require.resolve("agent-manifold/package.json")), "dist", "generator", "bin.js");
const result = spawnSync(process.execPath, [manifold, "init", ...process.argv.slice(2)], { stdio: "inherit" });
if (result.error !== undefined) process.stderr.write(`create-agent-manifold: ${result.error.message}\n`);
process.exitCode = result.status ?? 1;
