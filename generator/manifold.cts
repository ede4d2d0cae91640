#!/usr/bin/env node
/**
 * The `manifold` executable (package.json "bin"). CommonJS, so `manifold --help` and `--version` are answered
 * from cli-text.cts before node's ES module loader starts; every other command imports bin.js (the ES entry,
 * which tests and a checkout's `node dist/generator/bin.js` run directly) and runs there unchanged.
 */
import cliText = require("./cli-text.cjs");

const answer = cliText.fixedAnswer(process.argv.slice(2));
if (answer !== undefined) {
  process.stdout.write(answer.out);
  process.exitCode = answer.code;
} else {
  import("./bin.js").catch((error: unknown) => {
    process.stderr.write(`manifold: internal error: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
}
