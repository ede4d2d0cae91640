/**
 * The generated module of a `kind: mcp` component under a strict `tsc` (the repository's flags): a
 * handler calling `Notes.client().addNote({title, body})` and reading `.id` compiles, an agent that
 * `uses` the server compiles, and a wrong field type does not.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { makeStrictProject, strictTsc } from "../support/strict-tsc.js";
import type { McpLockTool } from "../../runtime/spec/index.js";
import { lockText, mcpManifest, mcpProject } from "./mcp-support.js";

const ADD_NOTE: McpLockTool = {
  name: "add_note",
  inputSchema: { type: "object", properties: { title: { type: "string" }, body: { type: "string" } }, required: ["title", "body"] },
  outputSchema: { type: "object", properties: { id: { type: "string" }, count: { type: "integer" } }, required: ["id", "count"] },
};

const handler = (call: string) => `import { Notes } from "../generated/notes/index.js";
import { Helper } from "../generated/helper/index.js";

export async function remember(): Promise<string> {
  const out = await Notes.client().${call};
  const count: number = out.count;
  void count;
  return out.id;
}

export const usedSpecs = Helper.uses.notes.spec.capabilities.length;
`;

test("a handler calling the MCP client typechecks strictly; a wrong field type does not", async () => {
  const agent = "kind: agent\nname: helper\ndescription: Helps\nuses: [notes]\ncapabilities: []\n";
  const project = await mcpProject({
    "notes.yaml": mcpManifest("url: http://127.0.0.1:9/mcp\n"),
    "notes.mcp-lock.json": lockText([ADD_NOTE]),
    "helper.yaml": agent,
  });
  try {
    const gen = await project.gen();
    assert.is(gen.code, 0, gen.err);
    await makeStrictProject(project.root, "mcp-project");
    await writeFile(join(project.root, "src", "handler.ts"), handler(`addNote({ title: "Milk", body: "Buy milk" })`));
    const good = strictTsc(project.root);
    assert.ok(good.ok, good.output);

    await writeFile(join(project.root, "src", "handler.ts"), handler(`addNote({ title: 42, body: "Buy milk" })`));
    const bad = strictTsc(project.root);
    assert.not.ok(bad.ok);
    assert.match(bad.output, /src\/handler\.ts\(5,\d+\): error TS2322/, bad.output);
  } finally {
    await project.cleanup();
  }
});

test.run();
