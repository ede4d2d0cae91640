/**
 * Where a held stream's heap goes: starts bench/chat/server.ts (BENCH_SERVER=agent or bare; BENCH_BODY=ai-sdk
 * for the AI SDK stream), serves BENCH_WARM_STREAMS streams to their end, takes a heap snapshot, opens
 * BENCH_STREAMS streams held BENCH_HOLD_S s, takes another once every stream has its first chunk (both after
 * forced collections), and prints the objects new in the second, by constructor, per stream. With BENCH_BUILT=1
 * the server runs from tsc's output (bench/chat/tsconfig.built.json), as users run it, not under tsx.
 *
 *   npx tsx --conditions=source bench/chat/snapshot.ts          BENCH_SERVER=agent BENCH_STREAMS=1000 BENCH_TOP=40
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readFileSync, rmSync } from "node:fs";
import { Agent, request } from "node:http";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { serverArgs } from "./server-args.js";

const STREAMS = Number(process.env["BENCH_STREAMS"] ?? 1000);
const WARM = Number(process.env["BENCH_WARM_STREAMS"] ?? 200);
const TOP = Number(process.env["BENCH_TOP"] ?? 40);
const SERVER = process.env["BENCH_SERVER"] ?? "agent";
const AI_SDK = process.env["BENCH_BODY"] === "ai-sdk";

interface Group {
  count: number;
  bytes: number;
}

/** Objects in `after` whose ids are not in `before`, by type and constructor name (strings and code by type). */
function newObjects(before: string, after: string): Map<string, Group> {
  const ids = new Set<number>();
  const read = (path: string, each: (type: string, name: string, id: number, size: number) => void): void => {
    const snap = JSON.parse(readFileSync(path, "utf8")) as {
      snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
      nodes: number[];
      strings: string[];
    };
    const fields = snap.snapshot.meta.node_fields;
    const [t, n, i, s] = ["type", "name", "id", "self_size"].map((f) => fields.indexOf(f)) as [number, number, number, number];
    const types = snap.snapshot.meta.node_types[0];
    for (let k = 0; k < snap.nodes.length; k += fields.length)
      each(types[snap.nodes[k + t]!]!, snap.strings[snap.nodes[k + n]!]!, snap.nodes[k + i]!, snap.nodes[k + s]!);
  };
  read(before, (_type, _name, id) => ids.add(id));
  const groups = new Map<string, Group>();
  read(after, (type, name, id, size) => {
    if (ids.has(id)) return;
    const key = type === "object" || type === "closure" || type === "hidden" ? `${type} ${name.slice(0, 60)}` : type;
    const group = groups.get(key) ?? { count: 0, bytes: 0 };
    group.count++;
    group.bytes += size;
    groups.set(key, group);
  });
  return groups;
}

const child = spawn(process.execPath, ["--expose-gc", ...serverArgs()], {
  env: { ...process.env, NODE_ENV: "production", MANIFOLD_LOG_LEVEL: "error", BENCH_SERVER: SERVER, BENCH_HOLD_S: process.env["BENCH_HOLD_S"] ?? "10" },
  stdio: ["pipe", "pipe", "inherit"],
});
process.on("exit", () => child.kill("SIGKILL"));
let onLine: (value: Record<string, unknown>) => void = () => undefined;
const url = await new Promise<string>((resolve) => {
  createInterface({ input: child.stdout }).on("line", (line) => {
    const value = JSON.parse(line) as Record<string, unknown>;
    if (typeof value["url"] === "string") resolve(value["url"]);
    else onLine(value);
  });
});
const ask = (command: string, key: string): Promise<unknown> =>
  new Promise((resolve) => {
    onLine = (value) => {
      if (key in value) resolve(value[key]);
    };
    child.stdin.write(`${command}\n`);
  });

const pool = new Agent({ keepAlive: false, maxSockets: STREAMS + 10 });
const body = (): string =>
  JSON.stringify(
    AI_SDK
      ? { id: randomUUID(), messages: [{ id: "u1", role: "user", parts: [{ type: "text", text: "hold" }] }], trigger: "submit-message" }
      : { message: "hold" },
  );
/** One stream; `opened` once its first chunk is in, the promise when it ends. */
const open = (opened: () => void): Promise<void> =>
  new Promise((resolve, reject) => {
    const text = body();
    const req = request(
      `${url}/chat/stream`,
      { method: "POST", agent: pool, headers: { "content-type": "application/json", "content-length": Buffer.byteLength(text) } },
      (res) => {
        let first = true;
        res.setEncoding("utf8");
        res.on("data", (part: string) => {
          if (first && (part.includes("event: chunk") || part.includes("text-delta"))) {
            first = false;
            opened();
          }
        });
        res.on("end", resolve);
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(text);
  });

await Promise.all(Array.from({ length: WARM }, () => open(() => undefined)));
await new Promise((resolve) => setTimeout(resolve, 1500));
const dir = tmpdir();
const before = join(dir, `chat-${process.pid}-before.heapsnapshot`);
const after = join(dir, `chat-${process.pid}-after.heapsnapshot`);
const heapBefore = (await ask("gc", "gc_heap")) as number;
await ask(`snapshot ${before}`, "snapshot");
let firsts = 0;
let allOpen: () => void = () => undefined;
const opened = new Promise<void>((resolve) => {
  allOpen = resolve;
});
const all = Array.from({ length: STREAMS }, () =>
  open(() => {
    if (++firsts === STREAMS) allOpen();
  }),
);
await opened;
const heapAfter = (await ask("gc", "gc_heap")) as number;
await ask(`snapshot ${after}`, "snapshot");
const groups = [...newObjects(before, after)].sort(([, a], [, b]) => b.bytes - a.bytes);
const total = groups.reduce((sum, [, g]) => sum + g.bytes, 0);
console.log(
  `${SERVER}${AI_SDK ? " (AI SDK stream)" : ""}${process.env["BENCH_BUILT"] === "1" ? ", built" : ", tsx"}: heap per stream ${((heapAfter - heapBefore) / STREAMS / 1024).toFixed(2)} KB after GC; new objects ${(total / STREAMS).toFixed(0)} B per stream; load ${loadavg()
    .map((n) => n.toFixed(2))
    .join(" ")}`,
);
for (const [key, g] of groups.slice(0, TOP))
  console.log(`  ${(g.bytes / STREAMS).toFixed(0).padStart(6)} B ${(g.count / STREAMS).toFixed(2).padStart(7)} per stream  ${key}`);
if (process.env["BENCH_KEEP"] !== "1") for (const path of [before, after]) rmSync(path, { force: true });
else console.log(`snapshots: ${before} ${after}`);
// The streams are not waited for: what they hold is measured.
void all;
child.kill("SIGKILL");
process.exit(0);
