#!/usr/bin/env node
/**
 * The `manifold` executable. Kept apart from cli.ts so that importing `main` (tests do) never runs
 * it, and running it never depends on how the file was reached (npm's .bin symlink, npx, a path).
 */
import { fileURLToPath } from "node:url";
import { main, type CliIo } from "./cli.js";
import { printsOnly, staleBuildSource } from "./stale-build.js";

const color = process.stdout.isTTY === true && process.env["NO_COLOR"] === undefined;
const io: CliIo = { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t), color };

const argv = process.argv.slice(2);
// Only a command that runs the build's code is worth the checkout's source scan (an installed package has none).
const stale = printsOnly(argv) ? undefined : staleBuildSource(fileURLToPath(import.meta.url));
if (stale !== undefined) {
  io.err(
    `manifold: dist/ is older than ${stale}: this bin would check manifests by the rules of an earlier build. Run \`npm run build\` (or \`npm run gen\`, which runs the sources).\n`,
  );
  process.exitCode = 2;
} else
  main(argv, io).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      // A bug, not bad input: the user gets one line; a maintainer can ask for the stack.
      const detail = process.env["MANIFOLD_DEBUG"] === "1" && error instanceof Error ? `\n${error.stack}` : "";
      process.stderr.write(`manifold: internal error: ${error instanceof Error ? error.message : String(error)}${detail}\n`);
      process.exitCode = 1;
    },
  );
