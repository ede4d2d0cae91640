/**
 * The benchmark's tool, in a process of its own so that its work does not share the measuring
 * process's event loop: one capability that returns its input. Prints `{"url": …}` once listening.
 */
import { serveComponent } from "../../runtime/component/index.js";
import { BENCH_TOOL } from "./spec.js";

const running = await serveComponent(BENCH_TOOL, {
  port: 0,
  registry: false,
  log: () => undefined,
  handlers: { echo: (input: unknown) => input },
});
process.stdout.write(`${JSON.stringify({ url: running.url })}\n`);
