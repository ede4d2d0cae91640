/**
 * manifold init's templates and its choices: each template's manifests load without a diagnostic, the
 * files it writes, the questions on a terminal, and refusing a folder that is not empty.
 */
import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { CliIo } from "../../generator/cli-io.js";
import { runInit } from "../../generator/init/index.js";
import { projectName, scaffoldFiles, TEMPLATES } from "../../generator/init/scaffold.js";
import { loadProject } from "../../generator/load-project.js";
import { MANIFOLD_VERSION } from "../../runtime/manifest/index.js";

let dir: string;
test.before(async () => {
  dir = await mkdtemp(join(tmpdir(), "manifold-init-unit-"));
});
test.after(async () => {
  await rm(dir, { recursive: true, force: true });
});

function captureIo() {
  let out = "";
  let err = "";
  const io: CliIo = { out: (t) => void (out += t), err: (t) => void (err += t), color: false };
  return { io, output: () => ({ out, err }) };
}

const COMPONENTS = { minimal: ["greeter"], agent: ["greeter", "welcome-agent"], full: ["greeter", "welcome-agent", "welcome-flow"] };

for (const template of TEMPLATES) {
  test(`the ${template} template's manifests load with no diagnostic`, async () => {
    const project = join(dir, `load-${template}`);
    for (const [path, text] of Object.entries(scaffoldFiles({ template, name: "x" }))) {
      await mkdir(join(project, path, ".."), { recursive: true });
      await writeFile(join(project, path), text);
    }
    const loaded = await loadProject({ manifestsDir: "manifests", cwd: project });
    assert.equal(loaded.diagnostics, []);
    assert.equal(loaded.manifests.map((m) => m.name).sort(), COMPONENTS[template]);
  });
}

test("package.json: ESM, agent-manifold at this version, the scripts the README and CI name", () => {
  const pkg = JSON.parse(scaffoldFiles({ template: "agent", name: "demo" })["package.json"]!) as Record<string, Record<string, string>>;
  assert.is(pkg["type"] as unknown, "module");
  assert.is(pkg["name"] as unknown, "demo");
  assert.is(pkg["dependencies"]!["agent-manifold"], `^${MANIFOLD_VERSION}`);
  assert.equal(Object.keys(pkg["scripts"]!).sort(), ["dev", "gen", "gen:check", "start", "test", "typecheck"]);
  const ci = scaffoldFiles({ template: "agent", name: "demo" })[".github/workflows/ci.yml"]!;
  for (const step of ["npm ci", "npx manifold gen --check", "npm run typecheck", "npm test"]) assert.ok(ci.includes(`- run: ${step}\n`), step);
});

test("a name becomes an npm package name, and never reaches a manifest or code", () => {
  assert.is(projectName("My App!"), "my-app");
  assert.is(projectName("..."), "manifold-app");
  const files = scaffoldFiles({ template: "full", name: projectName('x"; process.exit(1); "') });
  for (const [path, text] of Object.entries(files)) if (!["package.json", "README.md"].includes(path)) assert.not.ok(text.includes("process-exit"), path);
});

test("create-agent-manifold is versioned with agent-manifold", () => {
  const companion = JSON.parse(readFileSync(new URL("../../packages/create-agent-manifold/package.json", import.meta.url), "utf8"));
  assert.is(companion.version, MANIFOLD_VERSION);
  assert.is(companion.dependencies["agent-manifold"], `^${MANIFOLD_VERSION}`);
  assert.is(companion.bin["create-agent-manifold"], "bin.js");
});

test("on a terminal without --template it asks for the template and the name", async () => {
  const input = new PassThrough();
  const output = new PassThrough();
  input.end("full\nshop\n");
  const { io } = captureIo();
  const target = join(dir, "asked");
  assert.is(await runInit([target], io, { input, output, interactive: true }), 0);
  assert.ok(existsSync(join(target, "manifests", "welcome-flow.yaml")));
  assert.ok(existsSync(join(target, "generated", "welcome-agent", "index.ts")), "gen ran");
  assert.is(JSON.parse(await readFile(join(target, "package.json"), "utf8")).name, "shop");
});

test("not on a terminal and without flags: the agent template, named after the folder", async () => {
  const { io } = captureIo();
  const target = join(dir, "Quiet App");
  assert.is(await runInit([target], io, { interactive: false }), 0);
  assert.ok(existsSync(join(target, "manifests", "welcome-agent.yaml")));
  assert.not.ok(existsSync(join(target, "manifests", "welcome-flow.yaml")));
  assert.is(JSON.parse(await readFile(join(target, "package.json"), "utf8")).name, "quiet-app");
});

test("a folder that is not empty is refused with exit 2 unless --force; an unknown template is a usage error", async () => {
  const target = join(dir, "taken");
  await mkdir(target);
  await writeFile(join(target, "notes.txt"), "mine");
  const refused = captureIo();
  assert.is(await runInit([target, "--template", "minimal"], refused.io), 2);
  assert.match(refused.output().err, /is not empty \(notes\.txt\); nothing written.*--force/);
  assert.not.ok(existsSync(join(target, "package.json")));
  const forced = captureIo();
  assert.is(await runInit([target, "--template", "minimal", "--force"], forced.io), 0);
  assert.is(await readFile(join(target, "notes.txt"), "utf8"), "mine");
  assert.ok(existsSync(join(target, "generated", "greeter", "index.ts")));
  const unknown = captureIo();
  assert.is(await runInit([join(dir, "new"), "--template", "huge"], unknown.io), 2);
  assert.match(unknown.output().err, /--template must be minimal, agent, full, not "huge"/);
});

test.run();
