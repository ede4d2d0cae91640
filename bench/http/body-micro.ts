/**
 * The two steps of reading a capability POST's body that body.ts changed, old and new alternated in
 * one process (15 rounds, median ns per call; CPU time, so a busy machine disturbs it little):
 * UTF-8 check + decode (isUtf8 then toString, against toString then a U+FFFD search), and the media
 * type check (the pattern, against a string comparison first).
 *
 *   npx tsx --conditions=source bench/http/body-micro.ts
 */
import { isUtf8 } from "node:buffer";
import { loadavg } from "node:os";
import { isJsonMediaType } from "../../runtime/component/body.js";
import { BODY } from "./spec.js";

const bytes = Buffer.from(BODY);
const CALLS = 200_000;
const ROUNDS = 15;
const PATTERN = /^application\/json[ \t]*(?:;[ \t]*charset[ \t]*=[ \t]*(?:utf-8|"utf-8")[ \t]*)?$/i;
let sink = 0;

const cases: Record<string, readonly [() => void, () => void]> = {
  "decode (isUtf8 + toString vs toString + U+FFFD search)": [
    () => {
      if (!isUtf8(bytes)) throw new Error("bad");
      sink += bytes.toString("utf8").length;
    },
    () => {
      const text = bytes.toString("utf8");
      if (text.includes("\uFFFD") && !isUtf8(bytes)) throw new Error("bad");
      sink += text.length;
    },
  ],
  "media type (pattern vs string first)": [
    // A fresh string per call, as each request's header value is.
    () => void (sink += PATTERN.test(`application/${sink & 0 ? "x" : "json"}`) ? 1 : 0),
    () => void (sink += isJsonMediaType(`application/${sink & 0 ? "x" : "json"}`) ? 1 : 0),
  ],
};

function cpuNs(fn: () => void): number {
  const start = process.cpuUsage();
  for (let i = 0; i < CALLS; i++) fn();
  const { user, system } = process.cpuUsage(start);
  return ((user + system) * 1000) / CALLS;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
for (const [name, [before, after]] of Object.entries(cases)) {
  const old: number[] = [];
  const now: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    if (round % 2 === 0) {
      old.push(cpuNs(before));
      now.push(cpuNs(after));
    } else {
      now.push(cpuNs(after));
      old.push(cpuNs(before));
    }
  }
  console.log(`${name}: before ${median(old).toFixed(1)} ns, after ${median(now).toFixed(1)} ns per call (${(median(now) / median(old)).toFixed(2)}x)`);
}
console.log(`load ${loadavg()[0]!.toFixed(2)}, node ${process.version}${sink === -1 ? "" : ""}`);
