/**
 * The planning-context seam (`orchestrator.useContext`) over HTTP with the real `openai` client
 * against the scripted server and a real tool: a context source that throws does not stop the
 * request, which is planned with the other sources' sections and without the failing one's (the
 * failure is logged); a source's evidence is kept in the execution record under its name.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { createLlmProvider, resolveLlmConfig } from "../../runtime/llm/index.js";
import { createMemoryExecutionStore, type ContextSource, type ExecutionStore } from "../../runtime/orchestration/index.js";
import { startScriptedLlm, type ScriptedLlm } from "../support/scripted-llm.js";
import { agentSpec, memoryLog, planStep, planText, serveAgent, startTools, type Tools } from "./support.js";

interface Context {
  tools: Tools;
  llm: ScriptedLlm;
  executions: ExecutionStore;
  lines: string[];
  agent: Awaited<ReturnType<typeof serveAgent>>;
}
const test = suite<Context>("context sources", {} as Context);

const systemOf = (body: any): string => String(body.messages?.[0]?.content ?? "");
const kindOf = (body: any): string => body.response_format?.json_schema?.name ?? "text";

test.before.each(async (context) => {
  context.tools = await startTools();
  context.llm = await startScriptedLlm((body) =>
    kindOf(body) === "routing_plan" ? { text: planText([planStep("sum", "worker", "add", { a: 20, b: 22 })]) } : { text: "42" },
  );
  const provider = createLlmProvider(resolveLlmConfig({ option: { baseUrl: context.llm.baseUrl, apiKey: "k", model: "m", maxRetries: 0 }, env: {} })!);
  context.executions = createMemoryExecutionStore();
  const { lines, log } = memoryLog();
  context.lines = lines;
  context.agent = await serveAgent(agentSpec("contextual", { natural: true }), {
    components: context.tools.specs,
    baseUrls: context.tools.baseUrls,
    llm: provider,
    executionStore: context.executions,
    componentName: "contextual",
    env: {},
    log,
  });
});
test.after.each(async ({ agent, tools, llm }) => {
  await agent.running.close();
  await tools.close();
  await llm.close();
});

const broken: ContextSource = {
  name: "broken",
  gather: async () => {
    throw new Error("the registry is down");
  },
};
const working: ContextSource = {
  name: "working",
  gather: async () => ({
    section: { source: "working", title: "House rules", text: "HOUSE-RULE: answer in French.", trust: "instructions" },
    evidence: { rules: 1 },
  }),
};

test("a source that throws does not stop the request: it is planned with the other sources and without the failing one", async ({
  agent,
  llm,
  tools,
  executions,
  lines,
}) => {
  agent.extension.orchestrator.useContext(broken, working);
  const { status, body } = await agent.post("/orchestrate/natural", { request: "what is 20 + 22?" });
  assert.is(status, 200, JSON.stringify(body));
  const plan = llm.requests.find((r) => kindOf(r.body) === "routing_plan")!.body;
  assert.match(systemOf(plan), "## House rules\nHOUSE-RULE: answer in French.");
  assert.equal(
    tools.calls.map((c) => c.capability),
    ["add"],
  );
  assert.ok(
    lines.some((line) => line.startsWith("warn context source broken failed")),
    lines.join("\n"),
  );
  const record = (await executions.get(String(body["plan_id"])))!;
  assert.equal(record.context, { working: { rules: 1 } }, "the failing source has no evidence");
});

test("a request whose only source throws is planned as without any", async ({ agent, llm }) => {
  agent.extension.orchestrator.useContext(broken);
  const { status, body } = await agent.post("/orchestrate/natural", { request: "what is 20 + 22?" });
  assert.is(status, 200, JSON.stringify(body));
  const plan = llm.requests.find((r) => kindOf(r.body) === "routing_plan")!.body;
  assert.not.match(systemOf(plan), "## ");
});

test.run();
