/**
 * Instructions per request by function, from dumps `instructions.ts` kept (`IR_KEEP=1`), with the
 * JIT-compiled JavaScript named: callgrind sees V8's generated code only as addresses, which node
 * writes out with their functions' names under `--perf-basic-prof` (/tmp/perf-<pid>.map). Given a
 * second dump, prints the difference function by function (what the first server pays over the second).
 *
 *   NODE_OPTIONS=--perf-basic-prof IR_KEEP=1 IR_BUILT=1 IR_ROUTE=POST IR_ONLY=generated,bare \
 *     npx tsx --conditions=source bench/http/instructions.ts
 *   npx tsx bench/http/annotate.ts <dir>/generated-POST.cg.out.3 [<dir>/bare-POST.cg.out.3]   ANNOTATE_REQUESTS=2000 ANNOTATE_TOP=40
 *
 * A map lists every address code was ever compiled at, and V8 reuses addresses; the entry logged last
 * for an address names it.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

const REQUESTS = Number(process.env["ANNOTATE_REQUESTS"] ?? 2_000);
const TOP = Number(process.env["ANNOTATE_TOP"] ?? 40);

interface CodeRange {
  readonly start: number;
  readonly end: number;
  readonly name: string;
  readonly order: number;
}

function readMap(pid: string): CodeRange[] {
  const ranges = readFileSync(`/tmp/perf-${pid}.map`, "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line, order) => {
      const [start, size] = line.split(" ", 2);
      const begin = Number.parseInt(start!, 16);
      return { start: begin, end: begin + Number.parseInt(size!, 16), name: line.slice(start!.length + size!.length + 2), order };
    });
  return ranges.sort((a, b) => a.start - b.start);
}

/** The range logged last among those holding `address` (ranges sorted by start; a code object is at most a few MB). */
function nameAt(ranges: readonly CodeRange[], address: number): string {
  let low = 0;
  let high = ranges.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (ranges[middle]!.start <= address) low = middle + 1;
    else high = middle;
  }
  let best: CodeRange | undefined;
  for (let i = low - 1; i >= 0 && address - ranges[i]!.start < 1 << 22; i--) {
    const range = ranges[i]!;
    if (address < range.end && (best === undefined || range.order > best.order)) best = range;
  }
  return best === undefined ? "JIT (unnamed)" : `JIT ${best.name}`;
}

/** Instructions per request by function name. */
function profile(dump: string): Map<string, number> {
  const pid = /^pid: (\d+)/m.exec(readFileSync(dump, "utf8"))?.[1];
  if (pid === undefined) throw new Error(`${dump}: no pid line; is it a callgrind dump?`);
  const ranges = readMap(pid);
  const text = execFileSync("callgrind_annotate", ["--inclusive=no", "--threshold=100", dump], { encoding: "utf8", maxBuffer: 256 << 20 });
  const costs = new Map<string, number>();
  for (const line of text.split("\n")) {
    const row = /^\s*([\d,]+) \(\s*[\d.]+%\)\s+(.*)$/.exec(line);
    if (row === null || row[2]!.includes("PROGRAM TOTALS")) continue;
    const jit = /^\?\?\?:0x([0-9a-f]+) \[\?\?\?\]/.exec(row[2]!);
    const name = jit === null ? row[2]!.replace(/^\?\?\?:/, "").replace(/\(.*$/, "") : nameAt(ranges, Number.parseInt(jit[1]!, 16));
    costs.set(name, (costs.get(name) ?? 0) + Number(row[1]!.replaceAll(",", "")) / REQUESTS);
  }
  return costs;
}

const [first, second] = process.argv.slice(2);
if (first === undefined) throw new Error("usage: annotate.ts <callgrind dump> [<dump to compare with>]");
const a = profile(first);
const b = second === undefined ? new Map<string, number>() : profile(second);
const total = (costs: Map<string, number>): number => [...costs.values()].reduce((sum, cost) => sum + cost, 0);
console.log(`instructions per request: ${Math.round(total(a))}${second === undefined ? "" : ` against ${Math.round(total(b))}`}`);
const rows = [...new Set([...a.keys(), ...b.keys()])].map((name) => ({ name, delta: (a.get(name) ?? 0) - (b.get(name) ?? 0) }));
rows.sort((x, y) => y.delta - x.delta);
for (const { name, delta } of rows.slice(0, TOP)) {
  const cells = second === undefined ? [delta] : [delta, a.get(name) ?? 0, b.get(name) ?? 0];
  console.log(`${cells.map((cell) => cell.toFixed(0).padStart(7)).join(" ")}  ${name.slice(0, 120)}`);
}
