/**
 * Episodic memory in an agent served without any of memory's parts (how a generated agent is served): it
 * loads with its first use. Shown: a workflow run, settled before anything loaded the memory, recorded as an
 * episode of the agent's domain in the store the agent made for itself (the process's shared memory
 * store, which createEpisodeStore gives here too). Without a model the summary is the mechanical one; the
 * record is written in the background and read until it is there.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { serveAgent } from "../../runtime/agent/index.js";
import type { RunningComponent } from "../../runtime/component/index.js";
import { createEpisodeStore } from "../../runtime/memory/index.js";
import type { ComponentSpec, WorkflowSpec } from "../../runtime/spec/index.js";
import { agentSpec, startTools, workflowStep, type Tools } from "../orchestration/support.js";
import { QUIET_AGENT } from "../support/serve.js";

const DOMAIN = "lazy-episodes";
const workflow: WorkflowSpec = {
  name: "totals",
  version: "1",
  inputs: [{ name: "a", type: "number", required: true }],
  steps: [workflowStep("sum", "add", { a: "${inputs.a}", b: 1 })],
  outputs: [{ name: "sum", value: "${steps.sum.output.sum}", required: true }],
};
let tools: Tools;
let running: RunningComponent;
test.before(async () => {
  tools = await startTools();
  const base = agentSpec("lazy-episodic-agent", { workflows: [workflow] });
  const spec: ComponentSpec = { ...base, agent: { ...base.agent!, memory: { user: false, episodic: true, domain: DOMAIN } } };
  running = await serveAgent(spec, tools.specs, { ...QUIET_AGENT, orchestration: { baseUrls: tools.baseUrls, executionStore: false } } as never);
});
test.after(async () => {
  await running.close();
  await tools.close();
});

test("a workflow run is recorded as an episode by the episodic memory its settling loaded", async () => {
  const response = await fetch(`${running.url}/orchestrate/totals`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ a: 1 }),
  });
  assert.is(response.status, 200, await response.clone().text());
  const store = createEpisodeStore({ domain: DOMAIN, env: process.env });
  let episodes = await store.recent({ limit: 10 });
  for (let read = 0; episodes.length === 0 && read < 2_000; read += 1) {
    await new Promise((resolve) => setTimeout(resolve, 5));
    episodes = await store.recent({ limit: 10 });
  }
  assert.equal(
    episodes.map((episode) => [episode.domain, episode.status]),
    [[DOMAIN, "completed"]],
  );
});

test.run();
