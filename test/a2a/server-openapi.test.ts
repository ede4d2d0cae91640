/**
 * The live `/openapi.json` of an agent says what it serves: `/a2a` and the agent card when A2A is on by
 * the manifest, the serve option or MANIFOLD_A2A_ENABLED (and not when the option turns a manifest's off);
 * `/chat/stream` documents the body useChat sends and `?protocol=ai-sdk`.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { serveAgent } from "../../runtime/agent/index.js";
import type { RunningComponent } from "../../runtime/component/index.js";
import type { ComponentSpec } from "../../runtime/spec/index.js";
import { double } from "../mcp/agent-support.js";
import { agentSpec, startTools, type Tools } from "../orchestration/support.js";
import { QUIET_AGENT } from "../support/serve.js";

for (const name of ["REDIS_URL", "OPENAI_API_KEY", "MANIFOLD_LLM_API_KEY", "MANIFOLD_LLM_BASE_URL", "MANIFOLD_A2A_ENABLED"]) delete process.env[name];

const test = suite<{ tools: Tools }>("the live OpenAPI document of A2A and the AI SDK stream", {} as never);
test.before(async (context) => {
  context.tools = await startTools();
});
test.after(async ({ tools }) => {
  await tools.close();
});

async function documentOf(tools: Tools, agent: Record<string, unknown>, options: Record<string, unknown> = {}): Promise<any> {
  const base = agentSpec("doc-agent", { workflows: [double] });
  const spec: ComponentSpec = { ...base, agent: { ...base.agent!, ...agent } as never };
  const running = (await serveAgent(spec, tools.specs, {
    ...QUIET_AGENT,
    enableOpenApi: true,
    ...options,
    orchestration: { baseUrls: tools.baseUrls, executionStore: false },
  } as never)) as RunningComponent;
  try {
    return await (await fetch(`${running.url}/openapi.json`)).json();
  } finally {
    await running.close();
  }
}

const hasA2a = (document: any): boolean => document.paths["/a2a"]?.post !== undefined && document.paths["/.well-known/agent-card.json"]?.get !== undefined;

test("A2A on by the serve option or by MANIFOLD_A2A_ENABLED: the document has /a2a and the card", async ({ tools }) => {
  assert.not.ok(hasA2a(await documentOf(tools, {})), "off by default");
  const byOption = await documentOf(tools, {}, { a2a: true });
  assert.ok(hasA2a(byOption), "on by the option");
  assert.ok(byOption.components.schemas.A2aJsonRpc);
  process.env["MANIFOLD_A2A_ENABLED"] = "true";
  try {
    assert.ok(hasA2a(await documentOf(tools, {})), "on by the environment");
  } finally {
    delete process.env["MANIFOLD_A2A_ENABLED"];
  }
});

test("A2A on in the manifest but off by the option: not in the document, as not served", async ({ tools }) => {
  assert.ok(hasA2a(await documentOf(tools, { a2a: true })));
  const off = await documentOf(tools, { a2a: true }, { a2a: false });
  assert.not.ok(hasA2a(off));
  assert.is(off.components.schemas.A2aJsonRpc, undefined);
});

test("/chat/stream: the useChat body ({id, messages}) and ?protocol=ai-sdk are documented", async ({ tools }) => {
  const document = await documentOf(tools, { chat: true });
  const post = document.paths["/chat/stream"].post;
  const protocol = post.parameters.find((p: any) => p.name === "protocol");
  assert.equal([protocol.in, protocol.schema.enum], ["query", ["ai-sdk"]]);
  const bodies = post.requestBody.content["application/json"].schema.oneOf.map((s: any) => s.$ref);
  assert.equal(bodies, ["#/components/schemas/ChatStreamRequest", "#/components/schemas/AiSdkChatRequest"]);
  const useChat = document.components.schemas.AiSdkChatRequest;
  assert.equal(Object.keys(useChat.properties).slice(0, 2), ["id", "messages"]);
  assert.equal(useChat.required, ["messages"]);
  assert.ok(post.responses["200"].headers["x-vercel-ai-ui-message-stream"]);
});

test.run();
