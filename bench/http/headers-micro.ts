/**
 * The response-writing part of a route's JSON answer (sendJson, then respond), in process and without
 * a socket, against a checkout given as BENCH_BEFORE, in the same run: the rounds alternate sides and
 * each figure is the median over rounds. Isolates what the loaded HTTP bench cannot resolve on a
 * shared machine (its rounds spread ±2× at load 8). `node --import tsx --conditions=source bench/http/headers-micro.ts`
 */
import { IncomingMessage, ServerResponse } from "node:http";
import { Socket } from "node:net";
import { loadavg } from "node:os";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

const BEFORE = process.env["BENCH_BEFORE"];
if (BEFORE === undefined) throw new Error("set BENCH_BEFORE to a checkout of the commit to compare with");
const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? 15);
const N = 100_000;

type Side = { name: string; run: () => void };
async function side(name: string, root: string): Promise<Side> {
  const { RouteContext, respond } = await import(pathToFileURL(resolve(root, "runtime/component/route-context.ts")).href);
  const { sendJson } = await import(pathToFileURL(resolve(root, "runtime/component/reply.ts")).href);
  const socket = new Socket();
  const body = JSON.stringify({ id: "b-42", name: "item b-42", stock: 4 });
  return {
    name,
    run: () => {
      const req = new IncomingMessage(socket);
      req.method = "GET";
      const res = new ServerResponse(req);
      // The pipeline's deferring context (no Koa middleware); the before checkout ignores the extra argument.
      const ctx = new RouteContext(req, res, "/api/items/b-42", { id: "b-42" }, true);
      sendJson(ctx, 200, body);
      respond(ctx);
    },
  };
}

const sides = [await side("after", resolve(import.meta.dirname, "../..")), await side("before", BEFORE)];
const times = new Map<string, number[]>(sides.map((s) => [s.name, []]));
for (let round = 0; round < ROUNDS + 2; round++) {
  for (const s of round % 2 === 0 ? sides : [...sides].reverse()) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < N; i++) s.run();
    const ns = Number(process.hrtime.bigint() - start) / N;
    if (round >= 2) times.get(s.name)!.push(ns); // the first two rounds warm the JIT
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const after = median(times.get("after")!);
const before = median(times.get("before")!);
console.log(`JSON answer written (sendJson + respond, no socket), median of ${ROUNDS} alternating rounds × ${N}, node ${process.version}`);
console.log(`after  ${after.toFixed(0)} ns/answer\nbefore ${before.toFixed(0)} ns/answer`);
console.log(
  `after / before ${(after / before).toFixed(3)} by time (aim < 1: fewer ns per answer)   load ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}`,
);
