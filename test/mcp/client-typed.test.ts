/**
 * The typed client of a `kind: mcp` component against the SDK-built notes server, over stdio (the
 * client spawns it) and over Streamable HTTP with a bearer token read from the environment: typed
 * structured output, `{ text }` for a text-only tool, a tool error as HANDLER_ERROR with the server's
 * text, a wrong argument refused at its pointer before anything is sent.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { closeMcpClient, createMcpClient, heldMcpSessions, type McpMethod } from "../../runtime/mcp/index.js";
import { rejection } from "../support/errors.js";
import { stopAll } from "../support/processes.js";
import { notesSpec, ROOT, startNotesHttp } from "./client-support.js";

async function exercise(client: Record<string, McpMethod>): Promise<void> {
  const first = await client["addNote"]!({ title: "groceries", body: "milk and eggs", tags: ["home"] });
  assert.equal(first, { id: "n1", title: "groceries", count: 1 });
  assert.equal(await client["shout"]!({ text: "quiet please" }), { text: "QUIET PLEASE" });
  assert.equal(await client["searchNotes"]!({ query: "milk" }), { notes: [{ id: "n1", title: "groceries" }], total: 1 });

  const failed = await rejection(client["failAlways"]!({ why: "because" }));
  assert.is(failed.code, "HANDLER_ERROR");
  assert.is(failed.message, "refused: because");

  // Refused here, at the pointers, before anything is sent: the server's count does not move.
  const refused = await rejection(client["addNote"]!({ title: "", tags: "home" }));
  assert.is(refused.code, "INVALID_INPUT");
  assert.equal(refused.details?.map((d) => d.pointer).sort(), ["/body", "/tags", "/title"]);
  const second = await client["addNote"]!({ title: "second", body: "b" });
  assert.equal(second, { id: "n2", title: "second", count: 2 });
}

test.after(async () => {
  await stopAll();
});

test("over stdio: the client spawns the server, calls its tools typed, and closing it ends the child", async () => {
  const client = createMcpClient(notesSpec(), { cwd: ROOT, stderr: "ignore" });
  await exercise(client);
  assert.equal(heldMcpSessions(), [{ name: "notes", holders: 1 }]);
  await closeMcpClient(client);
  assert.equal(heldMcpSessions(), []);
  const closed = await rejection(client["shout"]!({ text: "x" }));
  assert.is(closed.code, "UNAVAILABLE");
});

test("over Streamable HTTP with the bearer token from the variable the manifest names", async () => {
  const server = await startNotesHttp({ token: "s3cret-token" });
  const spec = notesSpec({ url: server.url, tokenEnv: "NOTES_TOKEN" });
  const client = createMcpClient(spec, { env: { NOTES_TOKEN: "s3cret-token" } });
  try {
    await exercise(client);
  } finally {
    await closeMcpClient(client);
  }
});

test("over HTTP without the token: UNAUTHORIZED naming the variable; a wrong one: UNAUTHORIZED (HTTP 401), the token in neither", async () => {
  const server = await startNotesHttp({ token: "s3cret-token" });
  const spec = notesSpec({ url: server.url, tokenEnv: "NOTES_TOKEN" });
  const unset = createMcpClient(spec, { env: {} });
  const missing = await rejection(unset["shout"]!({ text: "x" }));
  assert.is(missing.code, "UNAUTHORIZED");
  assert.match(missing.message, /NOTES_TOKEN/);
  await closeMcpClient(unset);

  const wrong = createMcpClient(spec, { env: { NOTES_TOKEN: "not-the-token" } });
  const refused = await rejection(wrong["shout"]!({ text: "x" }));
  assert.is(refused.code, "UNAUTHORIZED");
  assert.match(refused.message, /HTTP 401.*NOTES_TOKEN/);
  assert.not.match(refused.message, /not-the-token|s3cret-token/);
  await closeMcpClient(wrong);
});

test.run();
