/** Nothing from OpenTelemetry is loaded until initTelemetry(), and generated code never imports it. */
import { execFile } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { TS_NODE_ARGS } from "../support/ts-node-args.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const test = suite("telemetry loading");

test("a component serving and calling loads no OpenTelemetry module; initTelemetry loads the SDK", async () => {
  const fixture = fileURLToPath(new URL("fixtures/lazy-otel.ts", import.meta.url));
  const env = { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: "", OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "", OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: "" };
  const { stdout } = await promisify(execFile)(process.execPath, [...TS_NODE_ARGS, fixture], { cwd: root, env, timeout: 60_000 });
  const { before, after } = JSON.parse(stdout.trim().split("\n").at(-1)!) as { before: string[]; after: string[] };
  assert.equal(before, []);
  for (const module of ["@opentelemetry/api", "@opentelemetry/sdk-node", "@opentelemetry/sdk-trace"]) assert.ok(after.includes(module), module);
});

async function files(dir: string): Promise<string[]> {
  const entries = await readdir(join(root, dir), { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

test("generated code, the generator and its templates never mention @opentelemetry", async () => {
  const all = [
    ...(await files("generated")),
    ...(await files("test/fixtures/generated")),
    ...(await files("generator")),
    ...(await files("templates")),
    ...(await files("runtime/codegen")),
  ];
  assert.ok(all.length > 10, `scanned ${all.length} files`);
  for (const file of all) assert.not.match(await readFile(file, "utf8"), "@opentelemetry", file);
});

test.run();
