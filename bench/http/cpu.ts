/**
 * The parent's side of probe.ts: asks a benchmark server (a child with an IPC channel) for its CPU
 * time so far, in µs. The difference across a run, per request, is the server's CPU per request.
 */
import type { ChildProcess } from "node:child_process";
import { withTimeout } from "../../test/runtime/support.js";

export function cpuMicros(child: ChildProcess): Promise<number> {
  return withTimeout(
    new Promise<number>((resolve) => {
      child.once("message", (message) => resolve((message as { cpuMicros: number }).cpuMicros));
      child.send("cpu");
    }),
    5_000,
    "cpu probe",
  );
}
