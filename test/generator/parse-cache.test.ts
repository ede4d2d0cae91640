/**
 * gen's parse cache (.manifold-cache/parse.txt in the output folder): gen and `gen --check` parse only
 * the manifest texts it does not know; a diagnostic that points into a text known from the cache has the
 * position and wording a fresh parse gives; a cache from another version, or not what gen writes, is
 * ignored and the output is the same; texts parsed in worker threads load to the same project as texts
 * the loader parses itself.
 */
import { createRequire } from "node:module";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { main } from "../../generator/cli.js";
import { loadProject } from "../../generator/load-project.js";
import { ParseCache } from "../../generator/parse-cache.js";
import { parseInWorkers } from "../../generator/parse-workers.js";
import { GEOCODING_TOOL, TRAVEL_AGENT, TRAVEL_WORKFLOW, WEATHER_TOOL, tempProject } from "./load-helpers.js";

async function gen(root: string, out: string, ...extra: string[]): Promise<{ code: number; out: string; err: string }> {
  const [o, e]: [string[], string[]] = [[], []];
  const io = { out: (t: string) => o.push(t), err: (t: string) => e.push(t), color: false };
  const code = await main(["gen", "--manifests", join(root, "m"), "--out", join(root, out), ...extra], io);
  return { code, out: o.join(""), err: e.join("").replace(/ in [\d.]+ m?s\n/g, "\n") };
}

/** The texts the real yaml parser is given while `run` runs (the loader's module, watched, not replaced). */
async function parsedTexts<T>(run: () => Promise<T>): Promise<{ result: T; texts: string[] }> {
  const yaml = createRequire(import.meta.url)("yaml") as { parseDocument: (text: string, ...rest: unknown[]) => unknown };
  const real = yaml.parseDocument;
  const texts: string[] = [];
  yaml.parseDocument = (text, ...rest) => {
    texts.push(text);
    return real(text, ...rest);
  };
  try {
    return { result: await run(), texts };
  } finally {
    yaml.parseDocument = real;
  }
}

const named = (texts: string[]): string[] => texts.map((t) => /^name: (.*)$/m.exec(t)?.[1] ?? "?").sort();

test("gen and gen --check parse only the texts the cache does not know", async () => {
  const { root, cleanup } = await tempProject({ "m/geo.yaml": GEOCODING_TOOL, "m/weather.yaml": WEATHER_TOOL });
  try {
    const cold = await parsedTexts(() => gen(root, "out"));
    assert.is(cold.result.code, 0, cold.result.err);
    assert.equal(named(cold.texts), ["geocoding-service", "weather-service"]);
    const check = await parsedTexts(() => gen(root, "out", "--check"));
    assert.is(check.result.code, 0, check.result.err);
    assert.equal(check.texts, [], "--check parsed nothing: both texts were known");
    const weather = join(root, "m/weather.yaml");
    await writeFile(weather, (await readFile(weather, "utf8")).replace(/^description: .*$/m, "description: Changed"));
    const stale = await parsedTexts(() => gen(root, "out", "--check"));
    assert.is(stale.result.code, 1, "--check still compares the output");
    assert.equal(named(stale.texts), ["weather-service"]);
    const warm = await parsedTexts(() => gen(root, "out"));
    assert.is(warm.result.code, 0, warm.result.err);
    assert.equal(named(warm.texts), ["weather-service"], "only the changed text was parsed");
    assert.is((await gen(root, "fresh")).code, 0);
    for (const file of ["weather-service/openapi.json", "geocoding-service/openapi.json"])
      assert.is(await readFile(join(root, "out", file), "utf8"), await readFile(join(root, "fresh", file), "utf8"), file);
  } finally {
    await cleanup();
  }
});

test("a diagnostic pointing into a text known from the cache is the one a fresh parse gives", async () => {
  const { root, cleanup } = await tempProject({ "m/geo.yaml": GEOCODING_TOOL });
  try {
    assert.is((await gen(root, "out")).code, 0);
    // The same text again, so both files are known: a duplicate name across files, positioned in each.
    await writeFile(join(root, "m/geo-copy.yaml"), GEOCODING_TOOL);
    const cached = await parsedTexts(() => gen(root, "out"));
    const fresh = await gen(root, "other");
    assert.is(cached.result.code, 1);
    assert.ok(cached.result.err.includes("m/geo.yaml:2:7") && cached.result.err.includes("m/geo-copy.yaml:2"), cached.result.err);
    assert.is(cached.result.err, fresh.err, "same diagnostics, positions and wording");
  } finally {
    await cleanup();
  }
});

test("a cache from another version, or not what gen writes, is ignored", async () => {
  const { root, cleanup } = await tempProject({ "m/geo.yaml": GEOCODING_TOOL });
  try {
    assert.is((await gen(root, "out")).code, 0);
    const path = join(root, "out/.manifold-cache/parse.txt");
    const [head, ...entries] = (await readFile(path, "utf8")).split("\n");
    assert.ok(head?.startsWith("manifold parse cache"), head);
    const planted = entries.map((line) => line.replace("Place names to coordinates", "Planted"));
    for (const text of [["manifold parse cache 0", ...planted].join("\n"), "{ not the cache", `${head}\nno tab here\n`]) {
      await writeFile(path, text);
      const run = await parsedTexts(() => gen(root, "out", "--check"));
      assert.is(run.result.code, 0, run.result.err);
      assert.equal(named(run.texts), ["geocoding-service"], "parsed again");
    }
  } finally {
    await cleanup();
  }
});

test("texts parsed in worker threads load to the same project as texts parsed by the loader", async () => {
  const files = {
    "m/geo.yaml": GEOCODING_TOOL,
    "m/weather.yaml": WEATHER_TOOL,
    "m/agent.yaml": TRAVEL_AGENT,
    "m/flow.yaml": TRAVEL_WORKFLOW,
    "m/twice.yaml": "kind: tool\nname: twice\nname: again\n",
  };
  const { root, cleanup } = await tempProject(files);
  try {
    const items = Object.entries(files).map(([file, text]) => ({ file, text }));
    const answers = await parseInWorkers(items, 0);
    assert.equal(
      answers.map((a) => a !== undefined),
      [true, true, true, true, false],
      "a text with a diagnostic (a duplicate key) is left to the loader",
    );
    const plain = await loadProject({ manifestsDir: "m", cwd: root });
    const cache = await ParseCache.read(join(root, "out"));
    await cache.prime(items, 0);
    const viaWorkers = await parsedTexts(() => loadProject({ manifestsDir: "m", cwd: root, parsed: cache }));
    assert.equal(named(viaWorkers.texts), ["twice"], "the loader parsed only the text the workers left");
    assert.equal(viaWorkers.result, plain);
  } finally {
    await cleanup();
  }
});

test.run();
