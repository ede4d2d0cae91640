/**
 * The package as a user gets it: `npm pack`, the tarball installed into a fresh project next to
 * nothing but `typescript` (no `@types/*` of the user's own), a one-tool manifest, `npx manifold gen`,
 * then `tsc` under a strict tsconfig without `skipLibCheck` over the generated module, a hand-written
 * serve file and every `./runtime…` entry point the package exports, so any published `.d.ts` that
 * does not resolve fails here. The compiled serve file then runs as a real process on a free loopback
 * port with the embedded store (no Redis) and answers /health and its capability.
 *
 * npm runs with `--prefer-offline`: the package's dependencies are this repository's, so the cache
 * the repository's own install filled serves them.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { run } from "../support/npm.js";
import { staleBuildSource } from "../../generator/stale-build.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const require = createRequire(import.meta.url);
const repoTsc = join(dirname(require.resolve("typescript/package.json")), "bin", "tsc");
/** The TypeScript this repository builds with: the version its install already put in npm's cache. */
const TYPESCRIPT_VERSION = (JSON.parse(readFileSync(require.resolve("typescript/package.json"), "utf8")) as { version: string }).version;

/**
 * The README's "Add Manifold to your project" section, which this test follows: the `$schema` line it
 * tells users to write and the helpers it says `agent-manifold/runtime` exports.
 */
const README = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
const SECTION = README.slice(README.indexOf("## Add Manifold to your project"), README.indexOf("## Writing a tool"));
const SCHEMA_LINE = /`(# yaml-language-server: \$schema=[^`]+)`/.exec(SECTION)?.[1] ?? "(the README names no $schema line)";
const README_IMPORTS = [
  ...(/your own code imports ([^.]+) from `agent-manifold\/runtime`/.exec(SECTION.replace(/\s+/g, " "))?.[1] ?? "").matchAll(/`(\w+)`/g),
].map((m) => m[1]!);

const MANIFEST = `${SCHEMA_LINE}
kind: tool
name: greeter
description: Greets people
capabilities:
  - name: greet
    description: Greets someone by name
    input:
      required:
        - { name: name, type: string, example: Ada }
      optional:
        - { name: times, type: integer, example: 2 }
    output:
      required:
        - { name: greeting, type: string }
        - { name: length, type: integer }
`;

/** The user's serve file: the generated handle, a typed handler, a runtime import, PORT from the environment. */
const SERVE = `import { ManifoldError } from "agent-manifold/runtime";
import { Greeter, type GreeterHandlers, type GreetOutput } from "./generated/greeter/index.js";

const handlers: GreeterHandlers = {
  greet: async ({ name, times = 1 }): Promise<GreetOutput> => {
    if (name.trim() === "") throw new ManifoldError("INVALID_INPUT", "name is empty");
    const greeting = Array.from({ length: times }, () => \`Hello, \${name}!\`).join(" ");
    return { greeting, length: greeting.length };
  },
};

const running = await Greeter.serve({ handlers });
console.log(\`listening \${running.url}\`);
`;

/** What a strict project sets; `types` is left alone, `skipLibCheck` is absent, and no DOM lib stands in for node's types. */
const TSCONFIG = {
  compilerOptions: {
    target: "ES2022",
    lib: ["ES2022"],
    module: "nodenext",
    moduleResolution: "nodenext",
    strict: true,
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    noImplicitOverride: true,
    verbatimModuleSyntax: true,
    rootDir: ".",
    outDir: "dist",
  },
  include: ["generated", "serve.ts", "public-api.ts"],
};

let dir: string;
let project: string;
let installed = false;
let compiled = false;
let server: ChildProcess | undefined;

test.before(async () => {
  dir = await mkdtemp(join(tmpdir(), "manifold-package-install-"));
  project = join(dir, "project");
});

test.after(async () => {
  if (server !== undefined && server.exitCode === null && server.signalCode === null) server.kill("SIGKILL");
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

test("the packed package installs into a fresh project and `npx manifold gen` writes the tool there", async () => {
  // `npm test` has built dist/ already; run alone, this suite builds it the same way when it is older than the sources.
  const bin = join(root, "dist/generator/bin.js");
  if (!existsSync(bin) || staleBuildSource(bin) !== undefined) {
    const build = run("build", process.execPath, [repoTsc, "-p", join(root, "tsconfig.build.json")], root, 120_000);
    assert.ok(build.ok, build.output);
  }
  const pack = run("npm pack", "npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", dir], root, 60_000);
  assert.ok(pack.ok, pack.output);
  const [packed] = JSON.parse(pack.stdout) as { filename: string }[];
  const tarball = join(dir, packed!.filename);
  assert.ok(existsSync(tarball), pack.output);

  await mkdir(join(project, "manifests"), { recursive: true });
  await writeFile(join(project, "package.json"), `${JSON.stringify({ name: "consumer", version: "1.0.0", private: true, type: "module" }, null, 2)}\n`);
  const install = run(
    "npm install",
    "npm",
    ["install", "--ignore-scripts", "--no-audit", "--no-fund", "--prefer-offline", tarball, `typescript@${TYPESCRIPT_VERSION}`],
    project,
    180_000,
  );
  assert.ok(install.ok, install.output);
  installed = true;

  await writeFile(join(project, "manifests", "greeter.yaml"), MANIFEST);
  // The README's $schema line resolves from the manifests folder to the installed package's schema.
  const schemaPath = SCHEMA_LINE.split("$schema=")[1] ?? "";
  assert.ok(existsSync(join(project, "manifests", schemaPath)), `${SCHEMA_LINE} resolves in the project`);
  assert.ok(README_IMPORTS.length >= 3 && README_IMPORTS.includes("ManifoldError"), `the README names the runtime helpers: ${README_IMPORTS}`);
  const gen = run("manifold gen", "npx", ["--no-install", "manifold", "gen"], project, 60_000);
  assert.ok(gen.ok, gen.output);
  assert.ok(existsSync(join(project, "generated", "greeter", "index.ts")), gen.output);
  assert.match(await readFile(join(project, "generated", "greeter", "index.ts"), "utf8"), /from "agent-manifold\/runtime\/codegen\/v1"/);
});

test("the project typechecks under a strict tsconfig without skipLibCheck, every public entry point included", async () => {
  assert.ok(installed, "the install above failed");
  // Every `./runtime…` subpath of the installed package's exports map, so every published declaration is checked.
  const { exports } = JSON.parse(await readFile(join(project, "node_modules", "agent-manifold", "package.json"), "utf8")) as {
    exports: Record<string, unknown>;
  };
  const entries = Object.keys(exports).filter((key) => key.startsWith("./runtime"));
  assert.ok(entries.length > 5, `found ${entries.length} entry points`);
  const publicApi = entries.map((key, i) => `import type * as entry${i} from "agent-manifold${key.slice(1)}";\nexport type Entry${i} = typeof entry${i};\n`);
  // The helpers the README says users import from agent-manifold/runtime, as values: each must exist there.
  publicApi.push(`import { ${README_IMPORTS.join(", ")} } from "agent-manifold/runtime";\nexport const readmeHelpers = [${README_IMPORTS.join(", ")}];\n`);
  await writeFile(join(project, "public-api.ts"), publicApi.join(""));
  await writeFile(join(project, "serve.ts"), SERVE);
  await writeFile(join(project, "tsconfig.json"), `${JSON.stringify(TSCONFIG, null, 2)}\n`);

  const tsc = run("tsc", process.execPath, [join(project, "node_modules", "typescript", "bin", "tsc"), "-p", "."], project, 120_000);
  assert.ok(tsc.ok, tsc.output);
  assert.ok(existsSync(join(project, "dist", "serve.js")), tsc.output);
  compiled = true;
});

test("the compiled serve file runs: GET /health is 200 and POST /api/capabilities/greet returns the handler's result", async () => {
  assert.ok(compiled, "the typecheck above failed");
  // PORT=0 (a free port), HOST unset (loopback), no REDIS_URL: the embedded store.
  const child = spawn(process.execPath, ["dist/serve.js"], {
    cwd: project,
    env: { PATH: process.env["PATH"] ?? "", PORT: "0" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  server = child;
  let output = "";
  child.stdout!.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (output += d.toString()));
  const deadline = Date.now() + 20_000;
  let url: string | undefined;
  while (url === undefined) {
    url = /^listening (http:\/\/127\.0\.0\.1:\d+)$/m.exec(output)?.[1];
    if (url !== undefined) break;
    if (child.exitCode !== null || child.signalCode !== null) assert.unreachable(`serve.js exited ${child.exitCode ?? child.signalCode}:\n${output}`);
    if (Date.now() > deadline) assert.unreachable(`serve.js did not listen within 20 s:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }

  const health = await fetch(`${url}/health`, { signal: AbortSignal.timeout(5_000) });
  const healthBody = (await health.json()) as { name: string; status: string };
  assert.is(health.status, 200, output);
  assert.equal([healthBody.name, healthBody.status], ["greeter", "healthy"]);

  const post = (body: unknown) =>
    fetch(`${url}/api/capabilities/greet`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(5_000),
    });
  const greeted = await post({ name: "Ada", times: 2 });
  const text = await greeted.text();
  assert.is(greeted.status, 200, `${text}\n${output}`);
  assert.equal(JSON.parse(text), { greeting: "Hello, Ada! Hello, Ada!", length: 23 });
  // The manifest's input schema is enforced by the installed runtime before the handler runs.
  const invalid = await post({ times: 2 });
  assert.is(invalid.status, 400, await invalid.text());

  // SIGTERM drains and exits on its own; bounded, then the after hook's SIGKILL.
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  child.kill("SIGTERM");
  let timer: NodeJS.Timeout | undefined;
  const code = await Promise.race([exited, new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), 10_000)))]);
  clearTimeout(timer);
  assert.is(code, 0, output);
});

test.run();
