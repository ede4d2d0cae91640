import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { freshRequestId, validRequestId } from "../../runtime/context/ids.js";
import { TS_NODE_ARGS } from "../support/ts-node-args.js";

/** A version 8 (custom layout) UUID: lower-case hex, the version digit 8, the variant bits 10. */
const VERSION_8 = /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

test("fresh request ids are UUID-shaped, valid as a caller's id, and never repeat in a process", () => {
  const seen = new Set<string>();
  for (let i = 0; i < 200_000; i++) {
    const id = freshRequestId();
    if (!VERSION_8.test(id)) assert.unreachable(`not a version 8 UUID: ${id}`);
    seen.add(id);
  }
  assert.is(seen.size, 200_000);
  const id = freshRequestId();
  assert.is(validRequestId(id), id);
});

test("fresh request ids do not count a process's requests: consecutive tails are not consecutive numbers", () => {
  const tails = Array.from({ length: 20 }, () => Number.parseInt(freshRequestId().slice(24), 16));
  const steps = new Set(tails.slice(1).map((tail, i) => tail - tails[i]!));
  // A random odd stride modulo 2^48: stepping by one (a counter) has odds of one in 2^47.
  assert.not.ok(steps.has(1));
});

test("two processes make different request ids from their first", async () => {
  const script = `import { freshRequestId } from ${JSON.stringify(new URL("../../runtime/context/ids.ts", import.meta.url).href)}; console.log(freshRequestId());`;
  const run = async () => (await promisify(execFile)(process.execPath, [...TS_NODE_ARGS, "--input-type=module", "-e", script])).stdout.trim();
  const [a, b] = await Promise.all([run(), run()]);
  assert.match(a, VERSION_8);
  assert.match(b, VERSION_8);
  // Each process's first 74 bits are its own.
  assert.is.not(a.slice(0, 24), b.slice(0, 24));
  assert.is.not(a.slice(0, 24), freshRequestId().slice(0, 24));
});

test.run();
