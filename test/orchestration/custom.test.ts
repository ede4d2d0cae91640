/**
 * Custom mode over HTTP: `POST /orchestrate/custom` on an agent served with the extension, calling
 * real tools. Entries come back in request order, a failed step in its own entry; steps run one
 * after the other; the body is validated strictly.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { createMemoryRegistry } from "../../runtime/discovery/index.js";
import type { ComponentSpec } from "../../runtime/spec/types.js";
import { agentSpec, serveAgent, startTools, type Tools } from "./support.js";

interface Context {
  tools: Tools;
  agent: Awaited<ReturnType<typeof serveAgent>>;
}
const test = suite<Context>("custom mode", {} as Context);

test.before(async (context) => {
  context.tools = await startTools();
  context.agent = await serveAgent(agentSpec("custom-agent", { custom: true }), { components: context.tools.specs, baseUrls: context.tools.baseUrls });
});
test.after(async ({ tools, agent }) => {
  await agent.running.close();
  await tools.close();
});
test.before.each(({ tools }) => {
  tools.calls.length = 0;
});

type Entry = {
  step_id: string;
  tool: string;
  capability: string;
  success: boolean;
  error: { code: string; message: string } | null;
  output?: unknown;
  duration_ms: number;
};

test("entries in request order, a failed middle step reported in place, the next step still run", async ({ agent, tools }) => {
  const { status, body } = await agent.post("/orchestrate/custom", {
    steps: [
      { tool: "worker", capability: "add", params: { a: 1, b: 2 } },
      { tool: "worker", capability: "fail" },
      { tool: "worker", capability: "echo", params: { literal: "${inputs.x} {{input}}" } },
    ],
  });
  assert.is(status, 200);
  assert.is(body["success"], false);
  assert.is(body["mode"], "custom");
  assert.match(String(body["plan_id"]), /^custom-\d{19}$/);
  assert.type(body["duration_ms"], "number");
  const steps = body["steps"] as Entry[];
  assert.equal(
    steps.map((s) => [s.step_id, s.tool, s.capability, s.success]),
    [
      ["step-1", "worker", "add", true],
      ["step-2", "worker", "fail", false],
      ["step-3", "worker", "echo", true],
    ],
  );
  assert.equal(steps[0]!.output, { sum: 3 });
  assert.is(steps[0]!.error, null);
  assert.is(steps[1]!.error?.code, "HANDLER_ERROR");
  assert.is(steps[1]!.error?.message, "scripted failure");
  assert.not.ok("output" in steps[1]!);
  assert.equal(steps[2]!.output, { literal: "${inputs.x} {{input}}" }, "custom params are literal: no expressions");
  assert.equal(
    tools.calls.map((c) => c.capability),
    ["add", "fail", "echo"],
  );
});

test("steps run strictly one after the other, even when independent", async ({ agent, tools }) => {
  const { body } = await agent.post("/orchestrate/custom", {
    steps: [
      { tool: "worker", capability: "sleep", params: { ms: 60, tag: "1" } },
      { tool: "worker", capability: "sleep", params: { ms: 10, tag: "2" } },
      { tool: "worker", capability: "sleep", params: { ms: 30, tag: "3" } },
    ],
  });
  assert.is(body["success"], true);
  const [one, two, three] = tools.calls;
  assert.ok(two!.start >= one!.end! && three!.start >= two!.end!, "each started after the previous ended");
  assert.equal(
    tools.calls.map((c) => c.input["tag"]),
    ["1", "2", "3"],
  );
});

test("plan ids are custom-<unix_nano>: near the wall clock, unique and increasing", async ({ agent }) => {
  const ids: bigint[] = [];
  const before = BigInt(Date.now()) * 1_000_000n;
  for (let i = 0; i < 5; i += 1) {
    const { body } = await agent.post("/orchestrate/custom", { steps: [{ tool: "worker", capability: "echo" }] });
    ids.push(BigInt(String(body["plan_id"]).slice("custom-".length)));
  }
  for (let i = 1; i < ids.length; i += 1) assert.ok(ids[i]! > ids[i - 1]!, "increasing");
  // Bracketed by wall-clock readings taken around the requests (a second of slack for the anchor's
  // millisecond and any clock adjustment since), however long the requests took.
  const after = BigInt(Date.now()) * 1_000_000n;
  assert.ok(ids[0]! >= before - 1_000_000_000n && ids[4]! <= after + 1_000_000_000n, `between ${before} and ${after}: ${ids[0]}…${ids[4]}`);
});

test("an unknown tool or capability is a failed entry, not a 400", async ({ agent }) => {
  const { status, body } = await agent.post("/orchestrate/custom", {
    steps: [
      { tool: "nobody", capability: "echo" },
      { tool: "worker", capability: "no_such_thing" },
      { tool: "worker", capability: "echo", params: { ok: 1 } },
    ],
  });
  assert.is(status, 200);
  const steps = body["steps"] as Entry[];
  assert.is(steps[0]!.error?.code, "NOT_FOUND");
  assert.match(steps[0]!.error!.message, /nobody/);
  assert.is(steps[1]!.error?.code, "NOT_FOUND");
  assert.match(steps[1]!.error!.message, /no_such_thing/);
  assert.is(steps[2]!.success, true);
});

test("with a registry: a tool nobody registered and the agent does not use is NOT_FOUND, saying how to fix it; a used one that is down is UNAVAILABLE", async ({
  tools,
}) => {
  const registry = createMemoryRegistry();
  // `absent-tool` is one the agent uses (its spec is known) but no replica is registered.
  const absent: ComponentSpec = { ...tools.specs[0]!, name: "absent-tool" };
  const agent = await serveAgent(agentSpec("custom-registry-agent", { custom: true }), {
    components: [...tools.specs, absent],
    baseUrls: tools.baseUrls,
    registry,
  });
  try {
    const { status, body } = await agent.post("/orchestrate/custom", {
      steps: [
        { tool: "nobody", capability: "echo" },
        { tool: "absent-tool", capability: "echo" },
      ],
    });
    assert.is(status, 200);
    const [unknown, down] = body["steps"] as Entry[];
    assert.is(unknown!.error?.code, "NOT_FOUND");
    assert.match(unknown!.error!.message, /nobody/);
    assert.match(unknown!.error!.message, /baseUrls/, "says how to fix it");
    assert.is(down!.error?.code, "UNAVAILABLE");
    assert.match(down!.error!.message, /absent-tool/);
    assert.match(down!.error!.message, /REDIS_URL/);
  } finally {
    await agent.running.close();
  }
});

test("parameters nested 2,500 levels deep are 400 INVALID_INPUT before any work: no step runs, no 500", async ({ agent, tools }) => {
  let deep: unknown = 1;
  for (let i = 0; i < 2500; i++) deep = { d: deep };
  for (let i = 0; i < 10; i++) {
    const { status, body } = await agent.post("/orchestrate/custom", { steps: [{ tool: "worker", capability: "echo", params: { deep } }] });
    assert.is(status, 400);
    assert.is((body["error"] as { code: string }).code, "INVALID_INPUT");
  }
  assert.is(tools.calls.length, 0);
});

test("a malformed body is 400 INVALID_INPUT with a pointer per problem, and nothing runs", async ({ agent, tools }) => {
  const cases: [unknown, string[]][] = [
    [{}, ["/steps"]],
    [{ steps: [] }, ["/steps"]],
    [{ steps: "add" }, ["/steps"]],
    [{ steps: [{ tool: "worker" }] }, ["/steps/0/capability"]],
    [{ steps: [{ tool: "worker", capability: "echo", params: [1] }] }, ["/steps/0/params"]],
    [{ steps: [{ tool: "worker", capability: "echo", extra: 1 }] }, ["/steps/0/extra"]],
    [{ steps: [{ tool: "", capability: 3 }] }, ["/steps/0/capability", "/steps/0/tool"]],
    [{ steps: [{ tool: "worker", capability: "echo" }], plan: "x" }, ["/plan"]],
  ];
  for (const [body, pointers] of cases) {
    const response = await agent.post("/orchestrate/custom", body);
    assert.is(response.status, 400, JSON.stringify(body));
    const error = response.body["error"] as { code: string; details: { pointer: string }[] };
    assert.is(error.code, "INVALID_INPUT");
    assert.equal([...new Set(error.details.map((d) => d.pointer))].sort(), pointers, JSON.stringify(body));
  }
  const notJson = await agent.post("/orchestrate/custom", "{steps:");
  assert.is(notJson.status, 400);
  assert.is((notJson.body["error"] as { code: string }).code, "INVALID_JSON");
  assert.is(tools.calls.length, 0);
});

test("the request and conversation ids reach the tools; custom is not served when the manifest does not enable it", async ({ agent, tools }) => {
  const { headers } = await agent.post(
    "/orchestrate/custom",
    { steps: [{ tool: "worker", capability: "headers" }] },
    { "x-manifold-request-id": "req-custom-1", "x-manifold-conversation-id": "conv-7" },
  );
  assert.is(headers.get("x-manifold-request-id"), "req-custom-1");
  assert.is(tools.calls[0]!.headers["x-manifold-request-id"], "req-custom-1");
  assert.is(tools.calls[0]!.headers["x-manifold-conversation-id"], "conv-7", "the conversation travels on");
  assert.match(String(tools.calls[0]!.headers["x-workflow-id"]), /^custom-/);
  assert.is(tools.calls[0]!.headers["x-step-id"], "step-1");
  const plain = await serveAgent(agentSpec("plain-agent"), { components: tools.specs, baseUrls: tools.baseUrls });
  try {
    const { status, body } = await plain.post("/orchestrate/custom", { steps: [{ tool: "worker", capability: "echo" }] });
    assert.is(status, 404);
    assert.is((body["error"] as { code: string }).code, "NOT_FOUND");
  } finally {
    await plain.running.close();
  }
});

test("step calls carry the configured token, or the caller's with `forward`, and forwarded headers", async ({ tools }) => {
  const configured = await serveAgent(agentSpec("token-agent", { custom: true }), {
    components: tools.specs,
    baseUrls: tools.baseUrls,
    token: "configured-token-1",
    headers: { "x-team": "blue" },
  });
  const forwarding = await serveAgent(agentSpec("forward-agent", { custom: true }), {
    components: tools.specs,
    baseUrls: tools.baseUrls,
    token: "configured-token-1",
    forward: { headers: ["x-tenant"] },
  });
  try {
    const body = { steps: [{ tool: "worker", capability: "headers" }] };
    await configured.post("/orchestrate/custom", body, { authorization: "Bearer incoming-token-2", "x-tenant": "acme" });
    assert.is(tools.calls[0]!.headers["authorization"], "Bearer configured-token-1");
    assert.is(tools.calls[0]!.headers["x-team"], "blue");
    assert.is(tools.calls[0]!.headers["x-tenant"], undefined, "nothing forwarded unless asked");
    await forwarding.post("/orchestrate/custom", body, { authorization: "Bearer incoming-token-2", "x-tenant": "acme" });
    assert.is(tools.calls[1]!.headers["authorization"], "Bearer incoming-token-2");
    assert.is(tools.calls[1]!.headers["x-tenant"], "acme");
  } finally {
    await configured.running.close();
    await forwarding.running.close();
  }
});

test.run();
