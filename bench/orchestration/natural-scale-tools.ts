/**
 * The two components bench:natural-scale's request really calls (`geo`, `weather`), served on
 * loopback. The bench runs them in a process of their own (`node natural-scale-tools.ts` prints
 * `{"ports": {...}}` once listening), so their work does not count as the orchestrator's; the CI test
 * serves them in its own process.
 */
import { serveComponent, type RunningComponent } from "../../runtime/component/index.js";
import type { ComponentSpec } from "../../runtime/spec/index.js";
import { REAL_COMPONENTS } from "./natural-scale-catalog.js";

/** Lyon's coordinates and tomorrow's forecast; every other capability answers a placeholder it is never asked for. */
const ANSWERS: Readonly<Record<string, unknown>> = {
  geocode: { lat: 45.764, lon: 4.8357, name: "Lyon, France" },
  forecast: { temperature: 24, summary: "sunny" },
};

function handlersOf(spec: ComponentSpec): Record<string, () => unknown> {
  return Object.fromEntries(spec.capabilities.map((c) => [c.key, () => ANSWERS[c.name] ?? {}]));
}

export interface ScaleTools {
  /** Component name → the loopback port it listens on. */
  readonly ports: Readonly<Record<string, number>>;
  close(): Promise<void>;
}

export async function serveScaleTools(): Promise<ScaleTools> {
  const running: RunningComponent[] = [];
  for (const spec of REAL_COMPONENTS)
    running.push(await serveComponent(spec, { port: 0, registry: false, handleSignals: false, log: () => undefined, handlers: handlersOf(spec) }));
  return {
    ports: Object.fromEntries(running.map((r) => [r.spec.name, Number(new URL(r.url).port)])),
    close: async () => {
      await Promise.all(running.map((r) => r.close()));
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const tools = await serveScaleTools();
  process.stdout.write(`${JSON.stringify({ ports: tools.ports })}\n`);
}
