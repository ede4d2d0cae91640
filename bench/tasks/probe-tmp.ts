import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { createRedisTaskBackend } from "../../runtime/tasks/redis-backend.js";
import type { Lease } from "../../runtime/tasks/types.js";
import { startRedisServer } from "../../test/harness/redis-server.js";

const server = await startRedisServer();
const cpu = () => { const info = server.cli("INFO", "cpu"); const r = (n: string) => Number(new RegExp(`^${n}:([\\d.]+)`, "m").exec(info)![1]); return r("used_cpu_user") + r("used_cpu_sys"); };
const N = 20000;
const ids = Array.from({ length: N * 3 }, () => randomUUID());
let k = 0;
for (let round = 0; round < 3; round++) {
  server.cli("FLUSHALL");
  const client = new Redis({ port: server.port });
  const b = createRedisTaskBackend(client, { queue: "p" });
  await b.depth();
  const step = async (name: string, run: () => Promise<void>) => {
    const c0 = cpu(); const n0 = process.cpuUsage(); const t0 = performance.now();
    await run();
    const t1 = performance.now(); const n1 = process.cpuUsage(n0); const c1 = cpu();
    console.log(`${name.padEnd(12)} ${(N / ((t1 - t0) / 1000)).toFixed(0).padStart(7)}/s  redis ${((c1 - c0) * 1e6 / N).toFixed(1).padStart(5)} µs/task  node ${((n1.user + n1.system) / N).toFixed(1).padStart(5)} µs/task`);
  };
  await step("create", async () => { await Promise.all(Array.from({ length: N }, () => b.create({ task_id: ids[k++]!, type: "noop", input: { k: 1 }, timeout_ms: 60000 }))); });
  const all: Lease[] = [];
  await step("dequeue x50", async () => { for (;;) { const l = await b.dequeue({ count: 50, leaseMs: 30000, blockMs: 0 }); if (!l.length) break; all.push(...l); } });
  await step("finish x50", async () => { for (let i = 0; i < all.length; i += 50) await b.finishMany(all.slice(i, i + 50).map((l) => ({ status: "completed" as const, taskId: l.task.task_id, token: l.token, result: { ok: true } }))); });
  await b.close(); client.disconnect();
}
await server.close();
