/**
 * Which skills a request activates, over HTTP with the real `openai` client against the scripted
 * server: past MANIFOLD_SKILL_SELECTION_THRESHOLD candidates one `skill_selection` call chooses over
 * the compact index (recorded in the LLM debug record; unknown names dropped, near misses corrected)
 * and only the chosen skills' instructions reach the plan; up to it the choice is lexical and no
 * call is made; a chosen skill that does not fit the budget is left out whole, and the evidence says so.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { planStep, planText } from "../orchestration/support.js";
import { skill, skillsOf, startSkillsNetwork, systemOf } from "./run-support.js";

const test = suite("skill selection");

const ADD = planText([planStep("sum", "worker", "add", { a: 20, b: 22 })]);
const TOPICS = ["packing", "visas", "currency", "tipping", "greetings", "trains", "hiking", "museums", "beaches", "markets"];
const marker = (topic: string) => `FOLLOW-${topic.toUpperCase()}-RULES`;

async function publishTen(network: Awaited<ReturnType<typeof startSkillsNetwork>>): Promise<void> {
  for (const topic of TOPICS)
    await network.store.publish(skill(`${topic}-guide`, `${marker(topic)}: how to handle ${topic}.`, { description: `Guidance on ${topic} for travellers.` }));
}

test("past the threshold, one skill_selection call chooses; only the chosen skill's instructions reach the plan", async () => {
  const network = await startSkillsNetwork();
  try {
    await publishTen(network);
    network.answers = {
      skill_selection: () => ({ text: JSON.stringify({ skills: ["travel/currency-guide", "travel/no-such-skill", "travel/tiping-guide"] }) }),
      routing_plan: () => ({ text: ADD }),
      text: () => ({ text: "42" }),
    };
    const { status, body } = await network.ask("Which money should I bring to Japan?", "req-selected");
    assert.is(status, 200, JSON.stringify(body));
    const [selection] = network.received("skill_selection");
    assert.ok(selection, "a skill_selection request was made");
    assert.is(selection.response_format.json_schema.name, "skill_selection");
    const index = systemOf(selection);
    for (const topic of TOPICS) assert.match(index, `travel/${topic}-guide@1.0.0 — "Guidance on ${topic} for travellers."`);
    assert.not.match(index, "FOLLOW-", "the index shows descriptions, never instructions");

    const plan = systemOf(network.received("routing_plan")[0]);
    assert.match(plan, `### currency-guide (travel@1.0.0)\n\n${marker("currency")}`);
    // "tiping-guide" is a near miss of tipping-guide; "no-such-skill" is dropped.
    assert.match(plan, `### tipping-guide (travel@1.0.0)`);
    const shown = TOPICS.filter((t) => plan.includes(marker(t)));
    assert.equal(shown, ["currency", "tipping"]);
    const record = (await network.executions.get(String(body["plan_id"])))!;
    assert.equal(
      skillsOf(record).map((s) => s.name),
      ["currency-guide", "tipping-guide"],
    );
    const debug = (await network.debug.get("req-selected"))!;
    assert.equal(
      debug.interactions.map((i) => i.type),
      ["skill_selection", "plan_generation", "synthesis"],
    );
  } finally {
    await network.close();
  }
});

test("a selection naming no skill activates none", async () => {
  const network = await startSkillsNetwork();
  try {
    await publishTen(network);
    network.answers = {
      skill_selection: () => ({ text: JSON.stringify({ skills: [] }) }),
      routing_plan: () => ({ text: ADD }),
      text: () => ({ text: "42" }),
    };
    const { status, body } = await network.ask("add 20 and 22", "req-none");
    assert.is(status, 200, JSON.stringify(body));
    assert.not.match(systemOf(network.received("routing_plan")[0]), "## Skills");
  } finally {
    await network.close();
  }
});

test("up to the threshold the choice is lexical: no selection call, the skill sharing a term with the request", async () => {
  const network = await startSkillsNetwork({ settings: { selectionThreshold: 10 } });
  try {
    await publishTen(network);
    network.answers = { routing_plan: () => ({ text: ADD }), text: () => ({ text: "42" }) };
    const { status, body } = await network.ask("Any good markets in Marrakesh?", "req-lexical");
    assert.is(status, 200, JSON.stringify(body));
    assert.equal(network.received("skill_selection"), []);
    const plan = systemOf(network.received("routing_plan")[0]);
    assert.equal(
      TOPICS.filter((t) => plan.includes(marker(t))),
      ["markets"],
    );
  } finally {
    await network.close();
  }
});

test("a chosen skill that does not fit the budget is left out whole, and the evidence says so", async () => {
  const network = await startSkillsNetwork({ settings: { budgetBytes: 1024 } });
  try {
    const big = `BIG-PACKING-RULES ${"Roll clothes instead of folding them. ".repeat(40)}`;
    const bigSkill = await network.store.publish(skill("packing-list", big, { description: "Packing list for a trip." }));
    const smallSkill = await network.store.publish(
      skill("packing-weather", "SMALL-PACKING-RULES: check the weather.", { description: "Packing for the weather." }),
    );
    network.answers = { routing_plan: () => ({ text: ADD }), text: () => ({ text: "42" }) };
    const { status, body } = await network.ask("What should I pack for a trip to Oslo?", "req-budget");
    assert.is(status, 200, JSON.stringify(body));
    const plan = systemOf(network.received("routing_plan")[0]);
    assert.match(plan, "SMALL-PACKING-RULES");
    assert.not.match(plan, "BIG-PACKING-RULES");
    assert.not.match(plan, "Roll clothes", "never cut mid-instruction: not shown at all");
    const record = (await network.executions.get(String(body["plan_id"])))!;
    assert.equal(record.context?.["skills"], [
      { namespace: "travel", name: "packing-weather", version: "1.0.0", digest: smallSkill.digest, resources: [] },
      { namespace: "travel", name: "packing-list", version: "1.0.0", digest: bigSkill.digest, resources: [], left_out: "budget" },
    ]);
  } finally {
    await network.close();
  }
});

test.run();
