/**
 * An agent that `uses` an external MCP server (the SDK-built notes server, over Streamable HTTP):
 * natural mode plans from a catalog holding the server's tools, runs them through the agent's one
 * session and synthesises from their output (real `openai` client, scripted model); the server killed
 * with a call in flight fails that step cleanly with NETWORK_ERROR, and once it is back on the same
 * port the next request reconnects and works.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { createMemoryRegistry } from "../../runtime/discovery/index.js";
import { createLlmProvider, resolveLlmConfig } from "../../runtime/llm/index.js";
import { heldMcpSessions } from "../../runtime/mcp/index.js";
import { stopAll } from "../support/processes.js";
import { startScriptedLlm, type ScriptedLlm } from "../support/scripted-llm.js";
import { agentSpec, memoryLog, planStep, planText, serveAgent } from "../orchestration/support.js";
import { notesSpec, startNotesHttp } from "./client-support.js";

interface Context {
  llm: ScriptedLlm;
  server: Awaited<ReturnType<typeof startNotesHttp>>;
  agent: Awaited<ReturnType<typeof serveAgent>>;
}

const agentUsingMcp = suite<Context>("an agent using an MCP server");

agentUsingMcp.before.each(async (context) => {
  context.server = await startNotesHttp({ token: "notes-token" });
  context.llm = await startScriptedLlm();
  const provider = createLlmProvider(
    resolveLlmConfig({ option: { baseUrl: context.llm.baseUrl, apiKey: "sk-test", model: "test-model", maxRetries: 0 }, env: {} })!,
  );
  context.agent = await serveAgent(agentSpec("notes-agent", { natural: true, custom: true }), {
    components: [notesSpec({ url: context.server.url, tokenEnv: "NOTES_TOKEN" })],
    env: { NOTES_TOKEN: "notes-token" },
    llm: provider,
    componentName: "notes-agent",
    timeoutMs: 20_000,
    log: memoryLog().log,
  });
});

agentUsingMcp.after.each(async ({ llm, agent }) => {
  await agent.running.close();
  await llm.close();
  await stopAll();
});

agentUsingMcp("the planner's catalog holds the MCP tools; the plan's steps run on the server and the synthesis sees their output", async ({ agent, llm }) => {
  llm.reply(
    {
      text: planText([
        planStep("add", "notes", "add_note", { title: "trip", body: "book the train to Lyon" }),
        planStep("find", "notes", "search_notes", { query: "Lyon" }, ["add"]),
      ]),
    },
    { text: "You have one note about Lyon: trip." },
  );
  const { status, body } = await agent.post("/orchestrate/natural", { request: "note my trip, then find notes about Lyon" });
  assert.is(status, 200, JSON.stringify(body));
  assert.is(body["response"], "You have one note about Lyon: trip.");
  assert.equal(body["tools_used"], ["notes"]);
  const prompt = JSON.stringify(llm.requests[0]!.body.messages);
  assert.match(prompt, /search_notes/);
  assert.match(prompt, /add_note/);
  assert.match(prompt, /Finds notes whose title or body holds the query/);
  const synthesis = JSON.stringify(llm.requests[1]!.body.messages);
  assert.match(synthesis, /\\"total\\": 1/);
  assert.match(synthesis, /\\"title\\": \\"trip\\"/);
  assert.equal(heldMcpSessions(), [{ name: "notes", holders: 1 }], "one session for the agent");
});

agentUsingMcp("a plan whose arguments do not fit the tool's schema goes back to the model before anything is sent", async ({ agent, llm }) => {
  llm.reply(
    { text: planText([planStep("find", "notes", "search_notes", { limit: 5 })]) },
    { text: planText([planStep("find", "notes", "search_notes", { query: "x" })]) },
    { text: "Nothing found." },
  );
  const { status, body } = await agent.post("/orchestrate/natural", { request: "find x" });
  assert.is(status, 200, JSON.stringify(body));
  assert.match(JSON.stringify(llm.requests[1]!.body.messages), /query/);
});

agentUsingMcp("the server killed with a call in flight: that step fails with NETWORK_ERROR; restarted on its port, the next request works", async (context) => {
  const { agent } = context;
  const inFlight = agent.post("/orchestrate/custom", { steps: [{ tool: "notes", capability: "slow", params: { ms: 30_000 } }] });
  await context.server.waitForOutput(/slow started 30000/, "stderr");
  await context.server.kill();
  const { status, body } = await inFlight;
  assert.is(status, 200, JSON.stringify(body));
  assert.is(body["success"], false);
  const [step] = body["steps"] as { success: boolean; error: { code: string; message: string } }[];
  assert.is(step!.error.code, "NETWORK_ERROR", JSON.stringify(step));
  assert.not.match(step!.error.message, /notes-token/);

  context.server = await startNotesHttp({ port: context.server.port, token: "notes-token" });
  const again = await agent.post("/orchestrate/custom", { steps: [{ tool: "notes", capability: "shout", params: { text: "back" } }] });
  assert.is(again.status, 200, JSON.stringify(again.body));
  const [ok] = again.body["steps"] as { success: boolean; output: unknown }[];
  assert.is(ok!.success, true, JSON.stringify(again.body));
  assert.equal(ok!.output, { text: "BACK" });
});

agentUsingMcp(
  "with a registry, the agent registers the HTTP server it uses as type mcp (its session's health), and unregisters it on close",
  async ({ server }) => {
    const registry = createMemoryRegistry();
    const agent = await serveAgent(agentSpec("registering-agent", { custom: true }), {
      components: [notesSpec({ url: server.url, tokenEnv: "NOTES_TOKEN" })],
      env: { NOTES_TOKEN: "notes-token" },
      registry,
      componentName: "registering-agent",
      log: memoryLog().log,
    });
    try {
      const [entry] = await registry.byType("mcp", { health: ["healthy", "unhealthy"] });
      assert.ok(entry !== undefined, "registered");
      assert.is(entry.name, "notes");
      assert.is(entry.health, "healthy", "never tried counts as healthy");
      assert.is(entry.address, "127.0.0.1");
      assert.is(entry.port, server.port);
      assert.is(entry.metadata["used_by"], "registering-agent");
      assert.is(entry.metadata["mcp_url"], server.url);
      assert.equal(entry.capabilities.map((c) => c.name).sort(), ["add_note", "fail_always", "search_notes", "shout", "slow"]);
      assert.not.match(JSON.stringify(entry), /notes-token/);
      // Other agents' catalogs leave it out: only an agent holding the spec can call it.
      const other = await serveAgent(agentSpec("other-agent", { custom: true }), { registry, componentName: "other-agent", log: memoryLog().log });
      assert.equal(
        (await other.extension.orchestrator.catalog()).map((c) => c.name),
        [],
      );
      await other.running.close();
    } finally {
      await agent.running.close();
    }
    assert.equal(await registry.byType("mcp", { health: ["healthy", "unhealthy", "unknown"] }), []);
  },
);

agentUsingMcp.run();
