/**
 * How bench/chat runs server.ts: from source under tsx, or with BENCH_BUILT=1 as users run it, plain node
 * on tsc's output (bench/chat/tsconfig.built.json into .bench/chat-built; tsx wraps each named closure
 * and adds about a kilobyte per held stream that built code does not hold).
 */
import { spawnSync } from "node:child_process";
import { cpSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { TS_NODE_ARGS } from "../../test/support/ts-node-args.js";

/** The node arguments that run server.ts (built once per call when BENCH_BUILT=1). */
export function serverArgs(): string[] {
  if (process.env["BENCH_BUILT"] !== "1") return [...TS_NODE_ARGS, fileURLToPath(new URL("server.ts", import.meta.url))];
  const config = fileURLToPath(new URL("tsconfig.built.json", import.meta.url));
  // A type error elsewhere in the tree (another change in progress) still emits: said, not fatal.
  const tsc = spawnSync(fileURLToPath(new URL("../../node_modules/.bin/tsc", import.meta.url)), ["-p", config], { stdio: "inherit" });
  if (tsc.status !== 0) console.error("tsc -p bench/chat/tsconfig.built.json reported errors; running what it emitted");
  // tsc copies no .lua: the Redis scripts go beside the built modules, as they are beside the sources.
  const runtime = fileURLToPath(new URL("../../runtime", import.meta.url));
  cpSync(runtime, fileURLToPath(new URL("../../.bench/chat-built/runtime", import.meta.url)), {
    recursive: true,
    filter: (path) => !path.endsWith(".ts") && !path.endsWith(".md"),
  });
  return [fileURLToPath(new URL("../../.bench/chat-built/bench/chat/server.js", import.meta.url))];
}
