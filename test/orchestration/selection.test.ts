/**
 * Tiered selection at catalog scale (issue 28 item 1), over HTTP with the real `openai` client against
 * the scripted server and the real `worker` tool among 1,000 capabilities built in code: the plan call
 * sees only the selected capabilities (its prompt under the budget and far smaller than the
 * whole-catalog prompt); a hallucinated selection is corrected by did-you-mean; an empty selection
 * is asked again over a wider index, then falls back to the most relevant capabilities; a plan naming
 * a capability outside the selection is sent back; a continuation reuses the selection, or selects
 * again once when it needs more; under the threshold there is no selection call; an index that does
 * not fit the prompt budget is cut by relevance.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { planningMessages, promptBytes } from "../../runtime/llm/index.js";
import { readCatalog } from "../../runtime/orchestration/catalog.js";
import { planStep, planText, serveAgent, agentSpec } from "./support.js";
import { json, kindOf, promptOf, selectionOf, startSelectionNetwork, systemOf, type SelectionNetwork } from "./selection-support.js";
import { createLlmProvider, resolveLlmConfig } from "../../runtime/llm/index.js";

const REQUEST = "please add 20 and 22";
const ADD = planText([planStep("sum", "worker", "add", { a: 20, b: 22 })]);
/** The default prompt budget: MANIFOLD_LLM_CONTEXT_TOKENS 32000 × 3 bytes. */
const BUDGET = 96_000;

interface Context {
  network: SelectionNetwork;
}
const test = suite<Context>("tiered selection", {} as Context);

test.before.each(async (context) => {
  context.network = await startSelectionNetwork();
});
test.after.each(async ({ network }) => {
  await network.close();
});

const requestsOf = (network: SelectionNetwork, kind: string) => network.llm.requests.filter((r) => kindOf(r.body) === kind);

test("a 1,000-capability network is planned over the selection: the plan prompt is under the budget and a fraction of the whole catalog's", async ({
  network,
}) => {
  network.answers = { capability_selection: () => selectionOf("worker.add"), routing_plan: () => ({ text: ADD }), text: () => ({ text: "42" }) };
  const { status, body } = await network.agent.post("/orchestrate/natural", { request: REQUEST }, { "x-manifold-request-id": "req-scale" });
  assert.is(status, 200, JSON.stringify(body));
  assert.equal(
    network.llm.requests.map((r) => kindOf(r.body)),
    ["capability_selection", "routing_plan", "text"],
  );
  const [selection, planning] = network.llm.requests.map((r) => r.body);
  // The selection saw the compact index: one line per capability, no schemas.
  assert.match(systemOf(selection), /worker\.add — "add" \[tool\]/);
  assert.match(systemOf(selection), /\n\w+-svc-\d+\.\w+_records — "\w+ \w+ records of region \d+ by a free-text query\." \[tool\]\n/);
  assert.not.match(systemOf(selection), /input: \{/);
  // The plan saw worker.add's schema, and nothing of the other 1,005 capabilities.
  assert.match(systemOf(planning), /agent_name "worker"[\s\S]*capability "add"[\s\S]*input: \{a: number, b: number\}/);
  assert.not.match(systemOf(planning), /svc-|capability "echo"/);
  const catalog = await readCatalog(false, network.specs);
  assert.is(
    catalog.reduce((n, c) => n + c.capabilities.length, 0),
    1_006,
  );
  const whole = promptBytes(planningMessages(REQUEST, catalog, { maxPhases: 3 }));
  const record = (await network.debug.get("req-scale"))!;
  assert.equal(
    record.interactions.map((i) => i.type),
    ["tiered_selection", "plan_generation", "synthesis"],
  );
  const [selectionBytes, planBytes] = record.interactions.map((i) => i.prompt_bytes!);
  assert.ok(selectionBytes! <= BUDGET, `the selection prompt (${selectionBytes} bytes) fits the budget`);
  assert.ok(planBytes! < 4_096, `the plan prompt is ${planBytes} bytes`);
  assert.ok(whole > BUDGET, `the whole-catalog prompt (${whole} bytes) would not have fitted`);
  assert.ok(planBytes! * 50 < whole, `${planBytes} bytes against ${whole} for the whole catalog`);
  assert.is(network.tools.calls.length, 1, "worker.add was called");
});

test("a hallucinated selection is corrected by did-you-mean; a name with no near miss is dropped", async ({ network }) => {
  network.answers = {
    capability_selection: () =>
      json({
        capabilities: [
          { agent_name: "workr", capability: "ad" },
          { agent_name: "abacus", capability: "frobnicate" },
        ],
      }),
    routing_plan: () => ({ text: ADD }),
    text: () => ({ text: "42" }),
  };
  const { status, body } = await network.agent.post("/orchestrate/natural", { request: REQUEST });
  assert.is(status, 200, JSON.stringify(body));
  const [planning] = requestsOf(network, "routing_plan");
  assert.match(systemOf(planning!.body), /agent_name "worker"[\s\S]*capability "add"/);
  assert.not.match(systemOf(planning!.body), /abacus|frobnicate/);
  assert.is(requestsOf(network, "capability_selection").length, 1, "a corrected selection is not asked again");
});

test("an empty selection is asked once more over a wider index, and recovers", async ({ network }) => {
  let selections = 0;
  network.answers = {
    capability_selection: () => ((selections += 1) === 1 ? json({ capabilities: [] }) : selectionOf("worker.add")),
    routing_plan: () => ({ text: ADD }),
    text: () => ({ text: "42" }),
  };
  const { status, body } = await network.agent.post("/orchestrate/natural", { request: REQUEST });
  assert.is(status, 200, JSON.stringify(body));
  const [first, second] = requestsOf(network, "capability_selection").map((r) => systemOf(r.body));
  assert.not.match(first!, /input: a, b/);
  // The wider index: the component's description and the input's fields on each line.
  assert.match(second!, /worker\.add — "add" \[tool\] \(worker: "test tool worker"; input: a, b\)/);
  assert.match(second!, /An earlier selection named nothing usable/);
  assert.match(systemOf(requestsOf(network, "routing_plan")[0]!.body), /capability "add"/);
});

test("two empty selections: the plan is made over the most relevant capabilities, never the whole catalog", async ({ network }) => {
  network.answers = { capability_selection: () => json({ capabilities: [] }), routing_plan: () => ({ text: ADD }), text: () => ({ text: "42" }) };
  const { status, body } = await network.agent.post("/orchestrate/natural", { request: REQUEST });
  assert.is(status, 200, JSON.stringify(body));
  assert.is(requestsOf(network, "capability_selection").length, 2);
  const system = systemOf(requestsOf(network, "routing_plan")[0]!.body);
  assert.match(system, /agent_name "worker"[\s\S]*capability "add"/, "add is the capability the request's words match");
  const shown = system.match(/ {2}- capability "/g)?.length ?? 0;
  assert.ok(shown > 0 && shown <= 8, `${shown} capabilities shown`);
});

test("a plan naming a capability outside the selection is sent back with the choice", async ({ network }) => {
  const plans = [planText([planStep("e", "worker", "echo", { v: 1 })]), ADD];
  network.answers = { capability_selection: () => selectionOf("worker.add"), routing_plan: () => ({ text: plans.shift()! }), text: () => ({ text: "42" }) };
  const { status, body } = await network.agent.post("/orchestrate/natural", { request: REQUEST });
  assert.is(status, 200, JSON.stringify(body));
  const [, regeneration] = requestsOf(network, "routing_plan");
  const sentBack = String(regeneration!.body.messages.at(-1).content);
  assert.match(sentBack, /\/steps\/0\/metadata\/capability: worker\.echo is not among the selected capabilities; choose from worker\.add/);
  assert.not.match(sentBack, /no component is named/);
  assert.equal(
    network.tools.calls.map((c) => c.capability),
    ["add"],
    "the echo step never ran",
  );
  assert.is(requestsOf(network, "capability_selection").length, 1, "a first plan keeps its selection");
});

test("a continuation plans over the same selection: no second selection call", async ({ network }) => {
  const plans = [
    JSON.stringify({ steps: [planStep("s1", "worker", "add", { a: 20, b: 22 })], continue: true }),
    planText([planStep("s2", "worker", "add", { a: "{{s1.response.data.sum}}", b: 1 }, ["s1"])]),
  ];
  network.answers = { capability_selection: () => selectionOf("worker.add"), routing_plan: () => ({ text: plans.shift()! }), text: () => ({ text: "43" }) };
  const { status, body } = await network.agent.post("/orchestrate/natural", { request: "add 20 and 22, then add 1" });
  assert.is(status, 200, JSON.stringify(body));
  assert.is(body["phases"], 2);
  assert.equal(
    network.llm.requests.map((r) => kindOf(r.body)),
    ["capability_selection", "routing_plan", "routing_plan", "text"],
  );
  const continuation = systemOf(requestsOf(network, "routing_plan")[1]!.body);
  assert.match(continuation, /This is phase 2[\s\S]*capability "add"/);
  assert.not.match(continuation, /svc-/);
  assert.equal(
    network.tools.calls.map((c) => c.input),
    [
      { a: 20, b: 22 },
      { a: 42, b: 1 },
    ],
  );
});

test("a continuation that needs a capability outside the selection selects again, once", async ({ network }) => {
  const plans = [
    JSON.stringify({ steps: [planStep("s1", "worker", "add", { a: 20, b: 22 })], continue: true }),
    planText([planStep("s2", "worker", "echo", { total: "{{s1.response.data.sum}}" }, ["s1"])]),
    planText([planStep("s2", "worker", "echo", { total: "{{s1.response.data.sum}}" }, ["s1"])]),
  ];
  const selections = [selectionOf("worker.add"), selectionOf("worker.echo")];
  network.answers = {
    capability_selection: () => selections.shift()!,
    routing_plan: () => ({ text: plans.shift()! }),
    text: () => ({ text: "42" }),
  };
  const { status, body } = await network.agent.post("/orchestrate/natural", { request: "add 20 and 22, then echo the total" });
  assert.is(status, 200, JSON.stringify(body));
  assert.equal(
    network.llm.requests.map((r) => kindOf(r.body)),
    ["capability_selection", "routing_plan", "routing_plan", "capability_selection", "routing_plan", "text"],
  );
  const reselection = promptOf(requestsOf(network, "capability_selection")[1]!.body);
  assert.match(reselection, /needed capabilities outside the earlier selection: worker\.echo/);
  const regenerated = systemOf(requestsOf(network, "routing_plan")[2]!.body);
  assert.match(regenerated, /capability "echo"/, "the regenerated continuation sees echo");
  assert.match(regenerated, /capability "add"/, "and the earlier phase's capability, which its templates read");
  assert.equal(
    network.tools.calls.map((c) => c.capability),
    ["add", "echo"],
  );
});

test("an index that does not fit the prompt budget is cut to the capabilities most relevant to the request, and says so", async (context) => {
  await context.network.close();
  // 2,000 tokens × 3: 6,000 bytes of prompt, for an index of about 90,000.
  const network = (context.network = await startSelectionNetwork({ adaptive: { contextTokens: 2_000 } }));
  network.answers = { capability_selection: () => selectionOf("worker.add"), routing_plan: () => ({ text: ADD }), text: () => ({ text: "42" }) };
  const { status, body } = await network.agent.post("/orchestrate/natural", { request: REQUEST }, { "x-manifold-request-id": "req-cut" });
  assert.is(status, 200, JSON.stringify(body));
  const system = systemOf(requestsOf(network, "capability_selection")[0]!.body);
  assert.match(system, /worker\.add — /);
  assert.match(system, /Only \d+ of the 1006 capabilities are listed: those whose names and descriptions best match the request\./);
  const record = (await network.debug.get("req-cut"))!;
  for (const interaction of record.interactions) assert.ok(interaction.prompt_bytes! <= 6_000, `${interaction.type}: ${interaction.prompt_bytes} bytes`);
});

test("the selection prompt grows with the catalog's logarithm: at 10,000 capabilities ceil(37.5 × log10 n) index lines, at most twice the 100-capability prompt", async (context) => {
  await context.network.close();
  const selectionPrompt = async (components: number): Promise<{ bytes: number; lines: number; system: string }> => {
    const network = (context.network = await startSelectionNetwork({ components }));
    network.answers = { capability_selection: () => selectionOf("worker.add"), routing_plan: () => ({ text: ADD }), text: () => ({ text: "42" }) };
    const { status, body } = await network.agent.post("/orchestrate/natural", { request: REQUEST }, { "x-manifold-request-id": "req-log" });
    assert.is(status, 200, JSON.stringify(body));
    const system = systemOf(requestsOf(network, "capability_selection")[0]!.body);
    const [selection] = (await network.debug.get("req-log"))!.interactions;
    assert.is(selection!.type, "tiered_selection");
    await network.close();
    return { bytes: selection!.prompt_bytes!, lines: system.match(/^[\w-]+\.\w+ — /gm)?.length ?? 0, system };
  };
  // 10 components × 10 and the served tools' 6: 106 capabilities; 1,000 × 10 and 6: 10,006.
  const small = await selectionPrompt(10);
  const large = await selectionPrompt(1_000);
  assert.is(small.lines, 100);
  assert.match(small.system, /This is a ranked excerpt\. Only 100 of the 106 capabilities are listed/);
  assert.is(large.lines, 151, "ceil(37.5 × log10(10,006)) lines");
  assert.match(large.system, /This is a ranked excerpt\. Only 151 of the 10006 capabilities are listed/);
  assert.match(large.system, /^worker\.add — "add" \[tool\]$/m, "the capability the request names is shown");
  assert.ok(large.bytes <= 2 * small.bytes, `${large.bytes} bytes at 10,006 capabilities against ${small.bytes} at 106`);
  context.network = await startSelectionNetwork({ components: 1 });
});

test("under the threshold there is no selection call: the plan sees the whole catalog", async ({ network }) => {
  const provider = createLlmProvider(resolveLlmConfig({ option: { baseUrl: network.llm.baseUrl, apiKey: "k", model: "m", maxRetries: 0 }, env: {} })!);
  const small = await serveAgent(agentSpec("small", { natural: true }), {
    components: network.tools.specs,
    baseUrls: network.tools.baseUrls,
    llm: provider,
    env: {},
  });
  try {
    network.answers = { capability_selection: () => selectionOf("worker.add"), routing_plan: () => ({ text: ADD }), text: () => ({ text: "42" }) };
    const { status, body } = await small.post("/orchestrate/natural", { request: REQUEST });
    assert.is(status, 200, JSON.stringify(body));
    assert.equal(
      network.llm.requests.map((r) => kindOf(r.body)),
      ["routing_plan", "text"],
    );
    assert.match(systemOf(network.llm.requests[0]!.body), /capability "echo"[\s\S]*capability "add"/, "every capability of the small network");
  } finally {
    await small.running.close();
  }
});

test("under the threshold, a catalog whose prompt would not fit the context is selected from, not refused", async () => {
  // 2 components × 5 capabilities + the worker's: under the threshold of 40, but over a 2,000-token context whole.
  const network = await startSelectionNetwork({ components: 2, adaptive: { contextTokens: 2_000, tieredSelectionThreshold: 40 } });
  try {
    network.answers = { capability_selection: () => selectionOf("worker.add"), routing_plan: () => ({ text: ADD }), text: () => ({ text: "42" }) };
    const { status, body } = await network.agent.post("/orchestrate/natural", { request: REQUEST });
    assert.is(status, 200, JSON.stringify(body));
    assert.equal(
      network.llm.requests.map((r) => kindOf(r.body)),
      ["capability_selection", "routing_plan", "text"],
    );
  } finally {
    await network.close();
  }
});

test("a plan prompt fitted near the budget keeps room for a regeneration: the plan sent back with its problems still fits", async () => {
  // A 2,500-token context (7,500 bytes) and 16 verbose capabilities selected: the whole selection (about 7.1 KB) would fit
  // the budget alone, and its regeneration (about 8 KB) would not.
  const network = await startSelectionNetwork({ components: 20, adaptive: { contextTokens: 2_500 } });
  try {
    const verbose = network.specs.filter((spec) => spec.name !== "worker").flatMap((spec) => spec.capabilities.map((c) => `${spec.name}.${c.name}`));
    const outside = planText([planStep("e", "worker", "echo", { v: 1 })]);
    let plans = 0;
    network.answers = {
      capability_selection: () => selectionOf("worker.add", ...verbose.slice(0, 15)),
      routing_plan: () => ({ text: (plans += 1) === 1 ? outside : ADD }),
      text: () => ({ text: "42" }),
    };
    const { status, body } = await network.agent.post("/orchestrate/natural", { request: REQUEST });
    assert.is(status, 200, JSON.stringify(body));
    const [first, second] = requestsOf(network, "routing_plan").map((r) => promptBytes(r.body.messages));
    assert.ok(second! <= 7_500 && second! > first!, `the regeneration (${second} bytes, the first plan prompt ${first}) fits the 7,500-byte budget`);
  } finally {
    await network.close();
  }
});

test.run();
