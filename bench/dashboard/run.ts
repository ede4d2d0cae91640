/**
 * The dashboard's answers with 1,000 registered components (issue 31): `/api/services` (about 1 MiB
 * of JSON) and `/swagger-urls.json`, against a bare node:http server answering the same bytes in the
 * same run. Aims: first answer under 100 ms; `/api/services` median ≤ 30 ms.
 *
 * Sides, alternated in order every round (the machine is shared: medians of rounds, load printed):
 * - dashboard: fetch as a browser's would, `Accept-Encoding: gzip, deflate` (the gzip variant once made);
 * - dashboard identity: `Accept-Encoding: identity`, the uncompressed bytes;
 * - dashboard revalidate: `If-None-Match` with the last ETag (what a polling browser sends): 304;
 * - bare string: node:http `res.end(text)`, the comparison the issue names;
 * - bare buffer: node:http `res.end(bytes)`, the floor for sending these bytes at all.
 * The client (fetch, in this process: its inflate and text decode are in every figure) is warmed on
 * the bare server first, so no first answer pays for loading it. No test asserts any of these times.
 *
 *   npm run bench:dashboard
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { loadavg } from "node:os";
import { serveDashboard } from "../../runtime/dashboard/index.js";
import { createMemoryRegistry, type ComponentRegistration } from "../../runtime/discovery/index.js";
import type { CapabilityWire } from "../../runtime/spec/index.js";
import { createStore } from "../../runtime/store/index.js";

const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? 7);
const POLLS = 15;
const quiet = Object.assign(() => undefined, { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined });
const load = () =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(" ");

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

interface Timed {
  readonly ms: number;
  readonly text: string;
  readonly status: number;
  readonly encoding: string;
  readonly etag: string;
}

async function timed(url: string, headers: Record<string, string> = {}): Promise<Timed> {
  const started = performance.now();
  const response = await fetch(url, { headers });
  const text = await response.text();
  const ms = performance.now() - started;
  return { ms, text, status: response.status, encoding: response.headers.get("content-encoding") ?? "identity", etag: response.headers.get("etag") ?? "" };
}

const median = (list: readonly number[]): number => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!;

const registry = createMemoryRegistry();
// Registered for longer than the run: a record going stale mid-run would change the list (and its ETag).
for (let i = 0; i < 1000; i += 1) await registry.register(registration(i), { ttlMs: 3_600_000 });
const bodies = { services: "[]", swagger: "[]", servicesBytes: Buffer.alloc(0) };
const bare = createServer((req, res) => {
  res.setHeader("content-type", "application/json");
  if (req.url === "/buffer/api/services") res.end(bodies.servicesBytes);
  else res.end(req.url === "/api/services" ? bodies.services : bodies.swagger);
});
await new Promise<void>((resolve) => bare.listen(0, "127.0.0.1", resolve));
const bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}`;
for (let i = 0; i < 5; i += 1) await timed(`${bareUrl}/warm`);

const store = createStore({ env: {} });
const dashboard = await serveDashboard({ port: 0, handleSignals: false, log: quiet, store, registry, env: {} });
const first = { services: await timed(`${dashboard.url}/api/services`), swagger: await timed(`${dashboard.url}/swagger-urls.json`) };
bodies.services = first.services.text;
bodies.servicesBytes = Buffer.from(first.services.text);
bodies.swagger = first.swagger.text;
const bareFirst = { services: await timed(`${bareUrl}/api/services`), swagger: await timed(`${bareUrl}/swagger-urls.json`) };

// As a polling browser does: If-None-Match with the ETag of the last answer it got.
let lastEtag = first.services.etag;
const remember = (answer: Timed): Timed => {
  if (answer.status === 200) lastEtag = answer.etag;
  return answer;
};
const sides: Record<string, () => Promise<Timed>> = {
  dashboard: async () => remember(await timed(`${dashboard.url}/api/services`)),
  "dashboard identity": async () => remember(await timed(`${dashboard.url}/api/services`, { "accept-encoding": "identity" })),
  "dashboard revalidate (304)": async () => remember(await timed(`${dashboard.url}/api/services`, { "if-none-match": lastEtag })),
  "bare string": () => timed(`${bareUrl}/api/services`),
  "bare buffer": () => timed(`${bareUrl}/buffer/api/services`),
  swagger: () => timed(`${dashboard.url}/swagger-urls.json`),
  "swagger bare": () => timed(`${bareUrl}/swagger-urls.json`),
};
const names = Object.keys(sides);
const roundMedians = new Map<string, number[]>(names.map((n) => [n, []]));
const seen = new Map<string, string>();
for (let round = 0; round < ROUNDS; round += 1) {
  // Every side goes first in some round: a slow spell of the machine is not always one side's.
  const order = names.map((_, i) => names[(i + round) % names.length]!);
  for (const name of order) {
    const times: number[] = [];
    for (let i = 0; i < POLLS; i += 1) {
      const answer = await sides[name]!();
      times.push(answer.ms);
      seen.set(name, `${answer.status} ${answer.encoding}`);
    }
    roundMedians.get(name)!.push(median(times));
  }
}
const steady = (name: string): number => median(roundMedians.get(name)!);

const row = (name: string, ms: number, against: string, againstMs: number, note = "") =>
  console.log(
    `${name.padEnd(30)} ${ms.toFixed(1).padStart(7)} ms   ${against} ${againstMs.toFixed(1).padStart(6)} ms   ratio ${(ms / againstMs).toFixed(2)}${note}`,
  );
console.log(
  `1,000 components (/api/services ${(Buffer.byteLength(bodies.services) / 1024).toFixed(0)} KiB), node ${process.version}; ${ROUNDS} rounds × ${POLLS} polls per side, median of round medians; load ${load()}`,
);
row("/api/services first answer", first.services.ms, "bare string", bareFirst.services.ms, ` (${first.services.encoding})`);
row("/swagger-urls.json first", first.swagger.ms, "bare string", bareFirst.swagger.ms);
for (const name of ["dashboard", "dashboard identity", "dashboard revalidate (304)"])
  row(`/api/services ${name.replace("dashboard", "").trim() || "(fetch default)"}`, steady(name), "bare string", steady("bare string"), ` [${seen.get(name)}]`);
row("bare buffer (floor)", steady("bare buffer"), "bare string", steady("bare string"));
row("/swagger-urls.json", steady("swagger"), "bare string", steady("swagger bare"));
const ms = steady("dashboard");
console.log(
  `aim: /api/services median ≤ 30 ms: ${ms.toFixed(1)} ms (${ms <= 30 ? "met" : "MISSED"}), ratio to bare ${(ms / steady("bare string")).toFixed(2)}; first answer < 100 ms: ${first.services.ms.toFixed(1)} ms (${first.services.ms < 100 ? "met" : "MISSED"}); load ${load()}`,
);

await dashboard.close();
await new Promise((resolve) => bare.close(resolve));
await store.close();
