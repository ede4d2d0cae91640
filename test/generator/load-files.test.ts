import { execFileSync } from "node:child_process";
import { mkdir, symlink } from "node:fs/promises";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { loadComponentFile } from "../support/manifests.js";
import { loadProject } from "../../generator/load-project.js";
import { GEOCODING_TOOL, TRAVEL_AGENT, TRAVEL_WORKFLOW, WEATHER_TOOL, single, tempProject, where } from "./load-helpers.js";

test("a project folder loads recursively, sorted, with paths relative to cwd", async () => {
  const { root, cleanup } = await tempProject({
    "manifests/tools/weather.yaml": WEATHER_TOOL,
    "manifests/tools/geo.yml": GEOCODING_TOOL,
    "manifests/agent.yaml": TRAVEL_AGENT,
    "manifests/flows/research.yaml": TRAVEL_WORKFLOW,
    "manifests/handlers/notes.md": "not a manifest",
    "manifests/node_modules/x.yaml": "kind: nope\n",
    "manifests/.hidden/x.yaml": "kind: nope\n",
  });
  try {
    const project = await loadProject({ manifestsDir: "manifests", cwd: root });
    assert.equal(project.diagnostics, []);
    assert.equal(
      project.manifests.map((m) => m.file),
      ["manifests/agent.yaml", "manifests/tools/geo.yml", "manifests/tools/weather.yaml", "manifests/flows/research.yaml"],
    );
    assert.equal(
      [...(project.sources?.keys() ?? [])],
      ["manifests/agent.yaml", "manifests/flows/research.yaml", "manifests/tools/geo.yml", "manifests/tools/weather.yaml"],
    );
  } finally {
    await cleanup();
  }
});

test("MF1001: a missing manifests folder, or a file in its place", async () => {
  const { root, cleanup } = await tempProject({ "file.yaml": WEATHER_TOOL });
  try {
    const d = single(await loadProject({ manifestsDir: "nowhere", cwd: root }));
    assert.equal([d.file, d.code, d.line, d.column], ["nowhere", "MF1001", 1, 1]);
    assert.is(d.message, "manifests folder nowhere does not exist");
    assert.equal(where(await loadProject({ manifestsDir: join(root, "file.yaml"), cwd: root })), [["MF1001", 1, 1]]);
  } finally {
    await cleanup();
  }
});

test("MF1002: a folder without manifests is a warning", async () => {
  const { root, cleanup } = await tempProject({ "m/readme.md": "hi" });
  try {
    const d = single(await loadProject({ manifestsDir: "m", cwd: root }));
    assert.equal([d.file, d.code, d.line, d.column, d.severity], ["m", "MF1002", 1, 1, "warning"]);
  } finally {
    await cleanup();
  }
});

test("MF1003: a dangling link or a FIFO named like a manifest is reported, not read", async () => {
  const { root, cleanup } = await tempProject({ "m/ok.yaml": GEOCODING_TOOL });
  try {
    await symlink(join(root, "gone.yaml"), join(root, "m/dangling.yaml"));
    execFileSync("mkfifo", [join(root, "m/pipe.yaml")]);
    const project = await loadProject({ manifestsDir: "m", cwd: root });
    assert.equal(
      project.diagnostics.map((d) => [d.file, d.code, d.line, d.column]),
      [
        ["m/dangling.yaml", "MF1003", 1, 1],
        ["m/pipe.yaml", "MF1003", 1, 1],
      ],
    );
    assert.is(project.diagnostics[0]!.message, "cannot read the file: it is a link to something that does not exist");
    assert.is(project.diagnostics[1]!.message, "cannot read the file: it is not a regular file");
    assert.is(project.manifests.length, 1);
  } finally {
    await cleanup();
  }
});

test("MF1003: a link that leaves the manifests folder is not read, so its text is never echoed; links inside it are", async () => {
  const { root, cleanup } = await tempProject({
    "m/ok.yaml": GEOCODING_TOOL,
    "outside/secret.yaml": "kind: tool\nname: SECRET_TOKEN=abc123\n",
    "outside/dir/x.yaml": "kind: nope\n",
  });
  try {
    await symlink("/proc/self/environ", join(root, "m/environ.yaml"));
    await symlink(join(root, "outside/secret.yaml"), join(root, "m/secret.yaml"));
    await symlink(join(root, "outside/dir"), join(root, "m/linked"));
    await symlink(join(root, "m/ok.yaml"), join(root, "m/alias.yml"));
    const project = await loadProject({ manifestsDir: "m", cwd: root });
    const out = project.diagnostics.filter((d) => d.message.includes("leaves the manifests folder"));
    assert.equal(
      out.map((d) => [d.file, d.code]),
      [
        ["m/environ.yaml", "MF1003"],
        ["m/linked/x.yaml", "MF1003"],
        ["m/secret.yaml", "MF1003"],
      ],
    );
    assert.not.ok(JSON.stringify(project).includes("SECRET_TOKEN"));
    assert.not.ok([...(project.sources?.keys() ?? [])].some((f) => f.includes("environ") || f.includes("secret")));
    // A link inside the folder is an ordinary file (here a second copy, so a duplicate name).
    assert.ok(project.sources?.has("m/alias.yml"));
  } finally {
    await cleanup();
  }
});

test("MF1004: a file over the size limit is not read", async () => {
  const { root, cleanup } = await tempProject({ "m/big.yaml": `kind: tool\n# ${"x".repeat(2 * 1024 * 1024)}\n`, "m/small.yaml": GEOCODING_TOOL });
  try {
    const d = single(await loadProject({ manifestsDir: "m", cwd: root }));
    assert.equal([d.file, d.code, d.line, d.column], ["m/big.yaml", "MF1004", 1, 1]);
    assert.is(d.message, "file is 2.0 MiB; a manifest may be at most 1.0 MiB");
    assert.equal(
      where(await loadProject({ manifestsDir: "m", cwd: root, maxFileBytes: 100 })).map((w) => w[0]),
      ["MF1004", "MF1004"],
    );
  } finally {
    await cleanup();
  }
});

test("MF1005: bytes that are not UTF-8 are reported at the first bad byte", async () => {
  const bytes = Buffer.concat([Buffer.from("kind: tool\nname: caf"), Buffer.from([0xe9]), Buffer.from("\n")]);
  const utf16 = Buffer.from("\uFEFFkind: tool\n", "utf16le");
  const { root, cleanup } = await tempProject({ "m/latin1.yaml": bytes, "m/utf16.yaml": utf16, "m/bom.yaml": `\uFEFF${GEOCODING_TOOL}` });
  try {
    const project = await loadProject({ manifestsDir: "m", cwd: root });
    assert.equal(where(project), [
      ["MF1005", 2, 10],
      ["MF1005", 1, 1],
    ]);
    assert.is(project.diagnostics[0]!.message, "the file is not valid UTF-8: byte 0xe9 at offset 20");
    assert.match(project.diagnostics[1]!.message, /looks like UTF-16/);
    assert.is(project.manifests.length, 1);
  } finally {
    await cleanup();
  }
});

test("a folder named like a manifest is searched, and link cycles end", async () => {
  const { root, cleanup } = await tempProject({ "m/x.yaml/inner.yaml": GEOCODING_TOOL });
  try {
    await mkdir(join(root, "m/sub"));
    await symlink(join(root, "m"), join(root, "m/sub/loop"));
    const project = await loadProject({ manifestsDir: "m", cwd: root });
    assert.equal(project.diagnostics, []);
    assert.equal(
      project.manifests.map((m) => m.file),
      ["m/x.yaml/inner.yaml"],
    );
  } finally {
    await cleanup();
  }
});

test("loadComponentFile returns the ComponentSpec, or throws the formatted diagnostics", async () => {
  const { root, cleanup } = await tempProject({
    "geo.yaml": GEOCODING_TOOL,
    "bad.yaml": "kind: tool\nname: t\ndescription: d\ncapabilities: []\n",
    "flow.yaml": TRAVEL_WORKFLOW,
  });
  try {
    const spec = await loadComponentFile("geo.yaml", { cwd: root });
    assert.is(spec.name, "geocoding-service");
    assert.equal(
      spec.capabilities.map((c) => c.key),
      ["geocodeLocation"],
    );
    const absolute = await loadComponentFile(join(root, "geo.yaml"), { cwd: root });
    assert.equal(absolute, spec);
    try {
      await loadComponentFile("bad.yaml", { cwd: root });
      assert.unreachable("should throw");
    } catch (error) {
      assert.instance(error, Error);
      assert.is((error as Error).message, "bad.yaml:4:15 - error MF1207: `capabilities` must not be empty\n4 | capabilities: []\n  |               ^");
    }
    await loadComponentFile("flow.yaml", { cwd: root }).then(
      () => assert.unreachable("should throw"),
      (error: unknown) => assert.match(String(error), /flow\.yaml: a workflow manifest cannot be served/),
    );
    await loadComponentFile("missing.yaml", { cwd: root }).then(
      () => assert.unreachable("should throw"),
      (error: unknown) => assert.match(String(error), /^Error: missing\.yaml:1:1 - error MF1003: cannot read the file: it does not exist$/),
    );
  } finally {
    await cleanup();
  }
});

test.run();
