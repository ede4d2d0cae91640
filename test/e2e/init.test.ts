/**
 * `npm create agent-manifold` and `manifold init` as a new user meets them: both packages packed with
 * `npm pack`, the companion run by `npm exec --package=<tarball>` in an empty folder to scaffold `demo`
 * with `--template agent`, then `npm install && npm test && npm run gen:check && npm run typecheck` in it.
 * One install serves every assertion. agent-manifold comes from its tarball, standing in for the registry;
 * `npm exec` and `npm install` run `--prefer-offline` (as package-install does): the cache the repository's
 * own install filled serves the dependencies' tarballs, and only the indexes a fresh machine's cache lacks
 * (an install from a lock file fetches tarballs, not indexes) come from the registry. With `--offline`
 * the scaffold failed ENOTCACHED on a fresh machine.
 */
import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { run } from "../support/npm.js";
import { staleBuildSource } from "../../generator/stale-build.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const require = createRequire(import.meta.url);
const repoTsc = join(dirname(require.resolve("typescript/package.json")), "bin", "tsc");

/** Every file under dir by relative path → its text, leaving out what npm install adds. */
async function snapshot(dir: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const path = relative(dir, join(entry.parentPath, entry.name)).split("\\").join("/");
    if (path.startsWith("node_modules/") || path === "package-lock.json") continue;
    files.set(path, await readFile(join(dir, path), "utf8"));
  }
  return files;
}

let dir: string;
let demo: string;
let manifoldTarball: string;
let scaffolded: Map<string, string> | undefined;
let installed = false;

test.before(async () => {
  dir = await mkdtemp(join(tmpdir(), "manifold-init-"));
  demo = join(dir, "work", "demo");
});

test.after(async () => {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

/** `npm pack` of a package folder into the test's folder: the tarball's path. */
function pack(label: string, folder: string): string {
  const packed = run(label, "npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", dir], folder, 60_000);
  assert.ok(packed.ok, packed.output);
  const [entry] = JSON.parse(packed.stdout) as { filename: string }[];
  const tarball = join(dir, entry!.filename);
  assert.ok(existsSync(tarball), packed.output);
  return tarball;
}

test("npm exec of the packed create-agent-manifold scaffolds demo with --template agent, generated/ included", async () => {
  // `npm test` has built dist/ already; run alone, this suite builds it the same way when it is older than the sources.
  const bin = join(root, "dist/generator/bin.js");
  if (!existsSync(bin) || staleBuildSource(bin) !== undefined) {
    const build = run("build", process.execPath, [repoTsc, "-p", join(root, "tsconfig.build.json")], root, 180_000);
    assert.ok(build.ok, build.output);
  }
  manifoldTarball = pack("npm pack agent-manifold", root);
  const createTarball = pack("npm pack create-agent-manifold", join(root, "packages", "create-agent-manifold"));
  await mkdir(join(dir, "work"));
  const create = run(
    "npm exec create-agent-manifold",
    "npm",
    [
      "exec",
      "--prefer-offline",
      "--yes",
      `--package=${createTarball}`,
      `--package=${manifoldTarball}`,
      "--",
      "create-agent-manifold",
      "demo",
      "--template",
      "agent",
    ],
    join(dir, "work"),
    180_000,
  );
  assert.ok(create.ok, create.output);
  scaffolded = await snapshot(demo);
  const pkg = JSON.parse(scaffolded.get("package.json") ?? "{}") as { type?: string; dependencies?: Record<string, string> };
  assert.is(pkg.type, "module");
  assert.is(pkg.dependencies?.["agent-manifold"], `^${JSON.parse(readFileSync(join(root, "package.json"), "utf8")).version}`);
  for (const path of ["manifests/greeter.yaml", "manifests/welcome-agent.yaml", "generated/welcome-agent/index.ts", ".github/workflows/ci.yml"]) {
    assert.ok(scaffolded.has(path), `${path} in ${[...scaffolded.keys()].join(", ")}`);
  }
  assert.is(scaffolded.get(".gitattributes"), "generated/** linguist-generated=true\n");
});

test("cd demo && npm install && npm test && npm run gen:check && npm run typecheck pass against the packed package", () => {
  assert.ok(scaffolded !== undefined, "the scaffold above failed");
  // The registry's stand-in: the dependency the scaffold wrote, pointed at the packed tarball (the cache serves the rest).
  const point = run("npm pkg set", "npm", ["pkg", "set", `dependencies.agent-manifold=file:${manifoldTarball}`], demo, 30_000);
  assert.ok(point.ok, point.output);
  const install = run("npm install", "npm", ["install", "--prefer-offline", "--ignore-scripts", "--no-audit", "--no-fund"], demo, 240_000);
  assert.ok(install.ok, install.output);
  installed = true;
  for (const script of ["test", "gen:check", "typecheck"]) {
    const ran = run(`npm run ${script}`, "npm", ["run", script], demo, 180_000);
    assert.ok(ran.ok, ran.output);
  }
});

test("manifold init writes the same files as npm create agent-manifold", async () => {
  assert.ok(installed, "the install above failed");
  const init = run("manifold init", "npx", ["--no-install", "manifold", "init", "../demo2", "--template", "agent", "--name", "demo"], demo, 60_000);
  assert.ok(init.ok, init.output);
  assert.equal(await snapshot(join(dir, "work", "demo2")), scaffolded);
});

test("a second init into the non-empty demo is refused (exit 2) and changes nothing", async () => {
  assert.ok(installed, "the install above failed");
  const before = await snapshot(demo);
  const again = run("manifold init (again)", "npx", ["--no-install", "manifold", "init", ".", "--template", "minimal"], demo, 60_000);
  assert.is(again.status, 2, again.output);
  assert.match(again.output, /is not empty .*nothing written.*--force/);
  assert.equal(await snapshot(demo), before);
});

test.run();
