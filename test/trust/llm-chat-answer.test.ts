/**
 * A chat turn in natural mode (spec audit, issue 32 L2): the assistant message's metadata carries
 * `confidence`, the same number `POST /orchestrate/natural` answers with, and the answer kept in the
 * session's history is bounded. A real orchestrator over real tools; the real `openai` client against
 * the scripted server.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { MAX_ANSWER_BYTES, runTurn } from "../../runtime/chat/turn.js";
import { createLlmProvider, resolveLlmConfig } from "../../runtime/llm/index.js";
import { agentSpec, serveAgent, startTools } from "../orchestration/support.js";
import { startScriptedLlm } from "../support/scripted-llm.js";

const test = suite("chat answers in natural mode");
const PLAN = JSON.stringify({ steps: [{ step_id: "sum", agent_name: "worker", depends_on: [], metadata: { capability: "add", parameters: { a: 2, b: 3 } } }] });

test("confidence in the metadata; a long answer is kept cut, with a marker", async () => {
  const tools = await startTools();
  const llm = await startScriptedLlm();
  const provider = createLlmProvider(resolveLlmConfig({ option: { baseUrl: llm.baseUrl, apiKey: "k-chat", maxRetries: 0 }, env: {} })!);
  const agent = await serveAgent(agentSpec("chat-natural", { natural: true }), { components: tools.specs, baseUrls: tools.baseUrls, llm: provider });
  try {
    const turn = (message: string) =>
      runTurn(
        { message, history: [] },
        { orchestrator: agent.extension.orchestrator, signal: new AbortController().signal, requestId: "req-chat-1", onEvent: () => undefined },
      );
    llm.reply({ text: PLAN }, { text: "five" });
    const answer = await turn("add 2 and 3");
    assert.is(answer.content, "five");
    assert.is(answer.metadata.confidence, 1);

    // A chat handler's answer has no synthesis cap of its own: the history cap holds it.
    const long = await runTurn(
      { message: "talk", history: [] },
      { handler: () => "z".repeat(100_000), signal: new AbortController().signal, requestId: "req-chat-2", onEvent: () => undefined },
    );
    assert.ok(Buffer.byteLength(long.content) <= MAX_ANSWER_BYTES + 100, `${Buffer.byteLength(long.content)} bytes kept`);
    assert.match(long.content, /\[answer truncated: it was longer than 65536 bytes\]$/);
  } finally {
    await agent.running.close();
    await tools.close();
    await llm.close();
  }
});

test.run();
