/**
 * A full agent (serveAgent: orchestration and HITL) that `uses` the SDK-built notes server over stdio:
 * a sensitive MCP tool waits for a human before anything reaches the server, and a tool error comes
 * back as a step error the recovery loop analyses with the server's own words.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { serveAgent } from "../../runtime/agent/index.js";
import type { RunningComponent } from "../../runtime/component/index.js";
import { createMemoryCheckpointStore, type HitlSpec } from "../../runtime/hitl/index.js";
import { createLlmProvider, resolveLlmConfig } from "../../runtime/llm/index.js";
import type { ComponentSpec } from "../../runtime/spec/index.js";
import { startScriptedLlm, type ScriptedLlm } from "../support/scripted-llm.js";
import { jsonPoster, QUIET_AGENT } from "../support/serve.js";
import { analysisText, kindOf } from "../orchestration/recovery-support.js";
import { agentSpec, planStep, planText } from "../orchestration/support.js";
import { notesSpec } from "./client-support.js";

interface Context {
  llm: ScriptedLlm;
  agent: RunningComponent | undefined;
}
const test = suite<Context>("an agent using an MCP server over stdio", {} as Context);

test.before.each(async (context) => {
  context.llm = await startScriptedLlm();
  context.agent = undefined;
});
test.after.each(async ({ llm, agent }) => {
  await agent?.close();
  await llm.close();
});

const ADD_NOTE_SENSITIVE: HitlSpec = { planApproval: false, sensitiveCapabilities: ["add_note"], expiryMs: 60_000, defaultAction: "reject" };

async function start(context: Context, hitl: HitlSpec) {
  const base = agentSpec("notes-keeper", { natural: true, custom: true });
  const spec: ComponentSpec = { ...base, agent: { ...base.agent!, uses: ["notes"], hitl } };
  const provider = createLlmProvider(resolveLlmConfig({ option: { baseUrl: context.llm.baseUrl, apiKey: "k", model: "m", maxRetries: 0 }, env: {} })!);
  const running = await serveAgent(spec, [notesSpec()], {
    ...QUIET_AGENT,
    llm: provider,
    orchestration: { executionStore: false },
    hitl: { store: createMemoryCheckpointStore(), expiry: false },
  } as never);
  context.agent = running;
  return jsonPoster(running.url);
}

test("a sensitive MCP tool (by capability name) waits for approval; nothing reaches the server before it", async (context) => {
  const post = await start(context, ADD_NOTE_SENSITIVE);
  context.llm.reply({ text: planText([planStep("add", "notes", "add_note", { title: "pay rent", body: "on the 1st" })]) });
  const first = await post("/orchestrate/natural", { request: "remember to pay rent" });
  assert.is(first.status, 202, JSON.stringify(first.body));
  assert.equal([first.body.checkpoint.type, first.body.checkpoint.current_step.step_id], ["step", "add"]);
  // Nothing was stored: a search through the same server finds no note.
  const none = await post("/orchestrate/custom", { steps: [{ tool: "notes", capability: "search_notes", params: { query: "rent" } }] });
  assert.equal(none.body.steps[0].output, { notes: [], total: 0 }, "the sensitive call was not sent");

  await post("/hitl/command", { checkpoint_id: first.body.checkpoint_id, action: "approve" });
  context.llm.reply({ text: "Noted: pay rent." });
  const resumed = await post(`/hitl/resume/${first.body.checkpoint_id}`);
  assert.is(resumed.status, 200, JSON.stringify(resumed.body));
  const [added] = resumed.body.steps as { status: string; output: { id: string; count: number } }[];
  assert.equal([added!.status, added!.output.count], ["completed", 1]);
});

test("an MCP tool error is a step error the recovery loop analyses with the server's words", async (context) => {
  const post = await start(context, { planApproval: false, sensitiveCapabilities: [], expiryMs: 60_000, defaultAction: "reject" });
  context.llm.reply(
    { text: planText([planStep("f", "notes", "fail_always", { why: "quota" })]) },
    { text: analysisText(false, "THE-SERVER-REFUSED nothing to correct") },
    { text: planText([]) },
    { text: "The notes server refused: quota." },
  );
  const { status, body } = await post("/orchestrate/natural", { request: "try the failing tool" });
  assert.is(status, 200, JSON.stringify(body));
  const [failed] = body.steps as { status: string; error: { code: string; message: string } }[];
  assert.equal([failed!.status, failed!.error.code], ["failed", "HANDLER_ERROR"]);
  assert.match(failed!.error.message, /refused: quota/);
  assert.equal(context.llm.requests.map(kindOf).slice(0, 2), ["routing_plan", "error_analysis"]);
  assert.match(JSON.stringify(context.llm.requests[1]!.body.messages), /refused: quota/, "the analysis saw the server's text");
  assert.is(body.response, "The notes server refused: quota.");
});

test.run();
