/**
 * Imported by every benchmark server: answers the parent's IPC "cpu" message with this process's
 * CPU time so far. Server CPU time per request is the figure that survives a busy shared machine,
 * where req/s moves with whatever else is running. With BENCH_COUNT=1 (count.ts) it also answers
 * "count" with the promises created and the heap bytes allocated so far: figures that do not move
 * with the machine's load at all.
 */
import { createHook } from "node:async_hooks";
import { getHeapStatistics } from "node:v8";

let promises = 0;
/** Other async resources (ticks, write requests, timers): each one runs every init hook, AsyncLocalStorage's included. */
let resources = 0;
let collections = 0;
if (process.env["BENCH_COUNT"] === "1") {
  // Counts every promise, as a promise hook (the cost AsyncLocalStorage turns on) sees them.
  createHook({
    init(_id, type) {
      if (type === "PROMISE") promises++;
      else resources++;
    },
  }).enable();
  const { PerformanceObserver } = await import("node:perf_hooks");
  new PerformanceObserver((list) => {
    collections += list.getEntries().length;
  }).observe({ entryTypes: ["gc"] });
}

process.on("message", (message) => {
  if (message === "cpu") {
    const { user, system } = process.cpuUsage();
    process.send?.({ cpuMicros: user + system });
  } else if (message === "count") {
    // Collected first (count.ts starts node with --expose-gc and a large young generation), so
    // the heap in use after a run of requests, less this, is what they allocated and still hold plus
    // what no collection has reclaimed yet: with no collection in between, all they allocated.
    (globalThis as { gc?: () => void }).gc?.();
    // The collection's performance entry arrives a little later; wait for it so it is not counted in the run.
    setTimeout(() => process.send?.({ promises, resources, collections, heapUsed: getHeapStatistics().used_heap_size }), 100);
  } else if (message === "heap") {
    process.send?.({ promises, resources, collections, heapUsed: getHeapStatistics().used_heap_size });
  }
});
// An IPC channel keeps the process alive on its own; the server's socket should be what does.
process.channel?.unref();
