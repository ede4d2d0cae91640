/**
 * `manifold gen` over a `kind: mcp` manifest naming the notes server over Streamable HTTP with a
 * bearer token from `auth.token_env`: the lock is written, and the token is in no written file and
 * no output. Without the variable, or with a wrong token, gen fails with MF1605.
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { startProcess, stopAll } from "../support/processes.js";
import { mcpManifest, mcpProject, NOTES_SERVER } from "./mcp-support.js";

const TOKEN = "notes-secret-token-8c1f";

async function everyFile(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

test.after(() => stopAll());

test("over HTTP with auth.token_env: the lock is written; the token is in no file and no output", async () => {
  const server = await startProcess({
    name: "notes-http",
    entry: NOTES_SERVER,
    args: ["--http", "--port", "0", "--token", TOKEN],
    ready: { line: /^listening (\S+)$/ },
  });
  const manifest = mcpManifest(`url: ${server.url}\nauth: { token_env: NOTES_TOKEN }\n`);
  const project = await mcpProject({ "notes.yaml": manifest });
  try {
    delete process.env["NOTES_TOKEN"];
    const unset = await project.gen();
    assert.is(unset.code, 1);
    assert.equal(
      unset.diagnostics.map((d) => [d.code, d.line, d.column]),
      [["MF1605", 4, 6]],
    );
    // Output masks names that look like secrets' (…_TOKEN), so the message names the key to look at.
    assert.match(unset.diagnostics[0]!.message, "(auth.token_env) is not set");

    process.env["NOTES_TOKEN"] = "wrong-token";
    const refused = await project.gen();
    assert.equal(
      refused.diagnostics.map((d) => d.code),
      ["MF1605"],
    );
    assert.not.match(JSON.stringify(refused), "wrong-token");

    process.env["NOTES_TOKEN"] = TOKEN;
    const run = await project.gen();
    assert.is(run.code, 0, run.err);
    const lock = JSON.parse(await project.read("manifests/notes.mcp-lock.json")) as { tools: { name: string }[] };
    assert.ok(lock.tools.some((t) => t.name === "search-notes"));
    assert.match(await project.read("generated/notes/index.ts"), `tokenEnv: "NOTES_TOKEN"`);
    assert.not.match(`${run.out}${run.err}`, TOKEN);
    for (const file of await everyFile(project.root)) assert.not.match(await readFile(file, "utf8"), TOKEN, file);
  } finally {
    delete process.env["NOTES_TOKEN"];
    await project.cleanup();
    await server.stop();
  }
});

test.run();
