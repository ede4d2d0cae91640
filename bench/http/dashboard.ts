/**
 * The dashboard's first answers with 1,000 registered components: `/api/services` and
 * `/swagger-urls.json` asked right after `serveDashboard()` resolves, against a bare node:http server
 * answering the same bytes in the same run (the machine's floor), then the median of 50 polls each.
 * Aims: first answer under 100 ms; `/api/services` median ≤ 30 ms (issue 31). The ratio to the bare
 * server says how much is the dashboard's. The client (fetch) is warmed on the bare server first, so
 * neither first answer pays for loading the client.
 *
 *   npx tsx --conditions=source bench/http/dashboard.ts
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { loadavg } from "node:os";
import { serveDashboard } from "../../runtime/dashboard/index.js";
import { createMemoryRegistry, type ComponentRegistration } from "../../runtime/discovery/index.js";
import type { CapabilityWire } from "../../runtime/spec/index.js";
import { createStore } from "../../runtime/store/index.js";

const quiet = Object.assign(() => undefined, { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined });

function registration(i: number): ComponentRegistration {
  const cap = (n: number): CapabilityWire => ({
    name: `cap_${n % 150}`,
    description: `cap_${n % 150} of a component`,
    endpoint: `/api/capabilities/cap_${n % 150}`,
    type: "tool" as const,
    internal: false,
    input_summary: { required_fields: [{ name: "query", type: "string", example: "Paris" }], optional_fields: [] },
    output_summary: { required_fields: [{ name: "result", type: "object" }], optional_fields: [] },
  });
  return {
    id: `svc-${i % 100}-${String(i).padStart(8, "0")}`,
    name: `svc-${i % 100}`,
    type: i % 10 === 0 ? "agent" : "tool",
    description: "a component",
    address: "127.0.0.1",
    port: 10_000 + i,
    metadata: { version: "1.0.0", openapi: i % 3 === 0 ? "true" : "false" },
    capabilities: [cap(i), cap(i + 7), cap(i + 31)],
    health: "healthy",
  };
}

async function timed(url: string): Promise<{ ms: number; text: string }> {
  const started = performance.now();
  const text = await (await fetch(url)).text();
  return { ms: performance.now() - started, text };
}

const median = (list: number[]): number => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!;

const registry = createMemoryRegistry();
for (let i = 0; i < 1000; i += 1) await registry.register(registration(i));
const bodies = { services: "[]", swagger: "[]" };
const bare = createServer((req, res) => {
  res.writeHead(200, { "content-type": "application/json" }).end(req.url === "/api/services" ? bodies.services : bodies.swagger);
});
await new Promise<void>((resolve) => bare.listen(0, "127.0.0.1", resolve));
const bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}`;
for (let i = 0; i < 5; i += 1) await timed(`${bareUrl}/warm`);

const store = createStore({ env: {} });
const dashboard = await serveDashboard({ port: 0, handleSignals: false, log: quiet, store, registry, env: {} });
const first = { services: await timed(`${dashboard.url}/api/services`), swagger: await timed(`${dashboard.url}/swagger-urls.json`) };
bodies.services = first.services.text;
bodies.swagger = first.swagger.text;
const bareFirst = { services: await timed(`${bareUrl}/api/services`), swagger: await timed(`${bareUrl}/swagger-urls.json`) };

const polls = { services: [] as number[], swagger: [] as number[], bareServices: [] as number[], bareSwagger: [] as number[] };
for (let i = 0; i < 50; i += 1) {
  polls.services.push((await timed(`${dashboard.url}/api/services`)).ms);
  polls.swagger.push((await timed(`${dashboard.url}/swagger-urls.json`)).ms);
  polls.bareServices.push((await timed(`${bareUrl}/api/services`)).ms);
  polls.bareSwagger.push((await timed(`${bareUrl}/swagger-urls.json`)).ms);
}

const row = (name: string, ms: number, bareMs: number) =>
  console.log(`${name.padEnd(34)} ${ms.toFixed(1).padStart(8)} ms   bare ${bareMs.toFixed(1).padStart(7)} ms   ratio ${(ms / bareMs).toFixed(2)}`);
console.log(
  `1,000 components (/api/services ${(Buffer.byteLength(bodies.services) / 1024).toFixed(0)} KiB), node ${process.version}, load ${loadavg()
    .map((n) => n.toFixed(2))
    .join(" ")}`,
);
row("/api/services first answer", first.services.ms, bareFirst.services.ms);
row("/swagger-urls.json first answer", first.swagger.ms, bareFirst.swagger.ms);
row("/api/services median of 50", median(polls.services), median(polls.bareServices));
row("/swagger-urls.json median of 50", median(polls.swagger), median(polls.bareSwagger));
const steady = median(polls.services);
console.log(
  `aim: /api/services median ≤ 30 ms: ${steady.toFixed(1)} ms (${steady <= 30 ? "met" : "MISSED"}); first answer < 100 ms: ${first.services.ms.toFixed(1)} ms (${first.services.ms < 100 ? "met" : "MISSED"})`,
);

await dashboard.close();
await new Promise((resolve) => bare.close(resolve));
await store.close();
