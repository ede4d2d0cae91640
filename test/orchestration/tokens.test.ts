/**
 * The orchestrator and the YAML workflow engine have the caller's token setter: runs that start
 * after `setToken` send the new bearer token; a call already in flight keeps the one it started with.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createOrchestrator, createWorkflowEngine } from "../../runtime/orchestration/index.js";
import type { ComponentSpec } from "../../runtime/spec/types.js";
import { startRecorder } from "../outbound/support.js";

const spec: ComponentSpec = {
  kind: "tool",
  name: "echo-tool",
  description: "echoes",
  version: "1.0.0",
  capabilities: [{ name: "echo", key: "echo", description: "echoes", type: "tool", internal: false, endpoint: "/api/capabilities/echo" }],
};
const step = { tool: "echo-tool", capability: "echo", params: {} };

test("orchestrator.setToken: the next run sends the new token; a call in flight keeps its own", async () => {
  let release: (() => void) | undefined;
  const recorder = await startRecorder((req, res) => {
    const answer = () => res.writeHead(200, { "content-type": "application/json" }).end("{}");
    // The first call is held until the token has been replaced.
    if (req.headers.authorization === "Bearer first-token" && release === undefined) release = answer;
    else answer();
  });
  const orchestrator = createOrchestrator({
    components: [spec],
    baseUrls: { "echo-tool": recorder.url },
    token: "first-token",
    executionStore: false,
    env: {},
  });
  try {
    const held = orchestrator.runCustom({ steps: [step] });
    while (release === undefined) await new Promise((resolve) => setTimeout(resolve, 5));
    orchestrator.setToken("second-token");
    release();
    await held;
    await orchestrator.runCustom({ steps: [step] });
    assert.equal(
      recorder.received.map((r) => r.headers.authorization),
      ["Bearer first-token", "Bearer second-token"],
    );
    orchestrator.setToken(undefined);
    await orchestrator.runCustom({ steps: [step] });
    assert.is(recorder.received.at(-1)!.headers.authorization, undefined, "cleared");
  } finally {
    await orchestrator.close();
    await recorder.close();
  }
});

test("the workflow engine's setToken reaches its runs", async () => {
  const recorder = await startRecorder();
  const engine = createWorkflowEngine({ components: [spec], baseUrls: { "echo-tool": recorder.url }, token: "old", executionStore: false, env: {} });
  try {
    const workflow = await engine.load(
      'kind: workflow\nname: ping\nversion: "1.0"\ninputs: {}\noutputs: {}\nsteps:\n  - name: one\n    tool: echo-tool\n    action: echo\n',
    );
    engine.setToken("new");
    await workflow.run({});
    assert.equal(
      recorder.received.map((r) => r.headers.authorization),
      ["Bearer new"],
    );
  } finally {
    await engine.close();
    await recorder.close();
  }
});

test.run();
