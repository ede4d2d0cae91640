/**
 * Two Manifold networks connected by A2A across real processes: the remote network (its own process:
 * tools and an agent with `a2a: true` behind a bearer token) and a local agent that `uses` it through a
 * `kind: a2a` manifest whose lock the real `manifold gen` wrote from the remote card. A workflow step and
 * a planned step (natural mode, real `openai` client, scripted model) delegate to the remote skill.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { serveAgent } from "../../runtime/agent/index.js";
import type { RunningComponent } from "../../runtime/component/index.js";
import { createLlmProvider, resolveLlmConfig } from "../../runtime/llm/index.js";
import { loadComponentFile } from "../../runtime/manifest/index.js";
import type { ComponentSpec, WorkflowSpec } from "../../runtime/spec/index.js";
import { REMOTE_TOKEN, TOKEN_ENV } from "../a2a/client-support.js";
import { mcpProject as remoteProject, type McpProject } from "../generator/mcp-support.js";
import { agentSpec, planStep, planText } from "../orchestration/support.js";
import { startProcess, stopAll } from "../support/processes.js";
import { startScriptedLlm, type ScriptedLlm } from "../support/scripted-llm.js";
import { jsonPoster, QUIET_AGENT } from "../support/serve.js";

interface Context {
  project: McpProject;
  llm: ScriptedLlm;
  local: RunningComponent;
}
const test = suite<Context>("two Manifold networks over A2A", {} as Context);

const delegate: WorkflowSpec = {
  name: "delegate",
  version: "1.0",
  description: "Doubles a number on the remote network",
  inputs: [{ name: "a", type: "number", required: true }],
  steps: [
    { name: "twice", component: "remote", componentKind: "tool", capability: "double", inputs: { a: "${inputs.a}" }, dependsOn: [], retry: 0, onError: "fail" },
  ],
  outputs: [{ name: "result", value: "${steps.twice.output.outputs.doubled}", type: { type: "number" }, required: true }],
};

test.before(async (context) => {
  process.env[TOKEN_ENV] = REMOTE_TOKEN; // read by gen (the card is behind the token) and by the local agent's client
  const remote = await startProcess({ name: "remote network", entry: "test/e2e/fixtures/a2a-remote.ts", ready: { line: /^listening (\S+)$/ } });
  context.project = await remoteProject({
    "remote.yaml": `kind: a2a\nname: remote\ncard_url: ${remote.url}/.well-known/agent-card.json\nauth: { token_env: ${TOKEN_ENV} }\n`,
  });
  const generated = await context.project.gen();
  assert.is(generated.code, 0, generated.err + generated.out);
  const remoteSpec = await loadComponentFile("manifests/remote.yaml", { features: [], cwd: context.project.root });
  context.llm = await startScriptedLlm();
  const provider = createLlmProvider(resolveLlmConfig({ option: { baseUrl: context.llm.baseUrl, apiKey: "k", model: "m", maxRetries: 0 }, env: {} })!);
  const base = agentSpec("local-agent", { natural: true, workflows: [delegate] });
  const spec: ComponentSpec = { ...base, agent: { ...base.agent!, uses: ["remote"] } };
  context.local = await serveAgent(spec, [remoteSpec], { ...QUIET_AGENT, llm: provider, orchestration: { executionStore: false } } as never);
});

test.after(async ({ project, llm, local }) => {
  await local?.close();
  await llm?.close();
  await project?.cleanup();
  await stopAll();
  delete process.env[TOKEN_ENV];
});

test("gen locked the remote card: its skills are the local component's typed capabilities", async ({ project }) => {
  const lock = JSON.parse(await project.read("manifests/remote.a2a-lock.json")) as { skills: { id: string }[] };
  assert.ok(
    lock.skills.some((s) => s.id === "double"),
    JSON.stringify(lock.skills),
  );
  assert.match(await project.read("generated/remote/index.ts"), /defineA2aAgent/);
});

test("a local workflow step delegates to the remote network's skill; its typed output flows on", async ({ local }) => {
  const post = jsonPoster(local.url);
  const { status, body } = await post("/orchestrate/delegate", { a: 21 });
  assert.is(status, 200, JSON.stringify(body));
  assert.equal(body.outputs, { result: 42 });
});

test("a planned step (natural mode) delegates to the remote skill and the synthesis sees its answer", async ({ local, llm }) => {
  llm.reply({ text: planText([planStep("twice", "remote", "double", { a: 4 })]) }, { text: "Eight." });
  const { status, body } = await jsonPoster(local.url)("/orchestrate/natural", { request: "what is twice 4?" });
  assert.is(status, 200, JSON.stringify(body));
  const [step] = body.steps as { status: string; output: { outputs: { doubled: number } } }[];
  assert.equal([step!.status, step!.output.outputs.doubled], ["completed", 8]);
  // The planner's catalog has the remote skill as the card described it (the workflow's description).
  assert.match(JSON.stringify(llm.requests[0]!.body.messages), /Doubles a number/);
  assert.match(JSON.stringify(llm.requests[1]!.body.messages), /doubled/);
  assert.is(body.response, "Eight.");
});

test.run();
