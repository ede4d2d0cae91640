/**
 * A delete wins over the extraction of an earlier turn still in flight: the user says something,
 * deletes the fact (or everything) while the model is still reading that turn, and the model's answer
 * then does not bring it back (nor its value as a `previous`). And a user's turns are extracted one
 * after another, so an earlier turn's answer arriving late never overwrites a later one's. A served
 * agent with chat, the real `openai` client against a scripted server; each extraction call is held
 * on a gate the test opens, so nothing depends on timing.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { factsCall as facts, type MemoryAgent, plans, promptOf, schemaName, startMemoryAgent, turn, turnAnswered } from "./user-support.js";

process.env["MANIFOLD_TRUST_IDENTITY_HEADERS"] = "true";

interface Gate {
  readonly promise: Promise<void>;
  readonly open: () => void;
}

interface Context {
  agent: MemoryAgent;
  /** One gate per extraction call, in the order the calls are made (0: the setup turn's). */
  gates: Gate[];
  /** Extraction calls that have reached their gate. */
  arrived: number;
}
const forget = suite<Context>("user memory: deletes and the extractions in flight");

function gate(context: Context, call: number): Gate {
  while (context.gates.length <= call) {
    let open!: () => void;
    const promise = new Promise<void>((resolve) => (open = resolve));
    context.gates.push({ promise, open });
  }
  return context.gates[call]!;
}

/** Yields until `count` extraction calls are held at their gates (bounded). */
async function untilHeld(context: Context, count: number): Promise<void> {
  for (let i = 0; i < 10_000 && context.arrived < count; i++) await new Promise<void>((resolve) => setImmediate(resolve));
  assert.ok(context.arrived >= count, `${context.arrived} extraction calls held, ${count} expected`);
}

forget.before.each(async (context) => {
  context.gates = [];
  context.arrived = 0;
  context.agent = await startMemoryAgent({
    beforeExtraction: async () => {
      const call = context.arrived++;
      await gate(context, call).promise;
    },
  });
  gate(context, 0).open();
  context.agent.extractions.push([
    { key: "home_city", value: "Lisbon", action: "add" },
    { key: "diet", value: "vegan", action: "add" },
  ]);
  await turn(context.agent, "I live in Lisbon and I am vegan.", "alice");
});

forget.after.each(async (context) => {
  for (const g of context.gates) g.open();
  for (let call = context.gates.length; call < 4; call++) gate(context, call).open();
  await context.agent.close();
});

forget("a fact deleted while the model reads an earlier turn stays deleted; the turn's other facts are kept", async (context) => {
  const { agent } = context;
  agent.extractions.push([
    { key: "home_city", value: "Lisbon, Alfama", action: "update" },
    { key: "transport", value: "trains", action: "add" },
  ]);
  await turnAnswered(agent, "I live in Alfama, in Lisbon, and I like trains.", "alice");
  await untilHeld(context, 2);
  assert.is((await facts(agent, "alice", "DELETE", "/memory/facts/home_city")).status, 204);
  gate(context, 1).open();
  await agent.memory.whenIdle();
  const kept = (await facts(agent, "alice")).body.facts;
  assert.equal(
    kept.map((f: any) => [f.key, f.value]),
    [
      ["diet", "vegan"],
      ["transport", "trains"],
    ],
  );
  assert.not.match(JSON.stringify(kept), /Lisbon/, "not even as a previous value");
  gate(context, 2).open();
  const seen = agent.llm.requests.length;
  await turn(agent, "Where should I go this weekend?", "alice");
  assert.not.match(plans(agent, seen)[0]!, /Lisbon|home_city/);
});

forget("after DELETE /memory/facts an extraction in flight keeps nothing, and no summary is written", async (context) => {
  const { agent } = context;
  agent.extractions.push([{ key: "transport", value: "trains", action: "add" }]);
  await turnAnswered(agent, "I like trains.", "alice");
  await untilHeld(context, 2);
  assert.equal((await facts(agent, "alice", "DELETE")).body, { deleted: 2 });
  gate(context, 1).open();
  await agent.memory.whenIdle();
  assert.equal((await facts(agent, "alice")).body, { user: "alice", facts: [] });
  assert.is(await agent.facts.summary("alice"), undefined);
});

forget("a user's turns are extracted in order: an earlier turn's late answer never overwrites a later one's", async (context) => {
  const { agent } = context;
  const byTurn = (prompt: string) => [{ key: "home_city", value: /moved on to Braga/.test(prompt) ? "Braga" : "Porto", action: "add" }];
  agent.extractions.push(byTurn, byTurn);
  await turnAnswered(agent, "I moved to Porto.", "alice");
  await turnAnswered(agent, "Actually, I moved on to Braga.", "alice");
  gate(context, 2).open();
  gate(context, 1).open();
  await agent.memory.whenIdle();
  const home = (await facts(agent, "alice")).body.facts.find((f: any) => f.key === "home_city");
  assert.equal([home.value, home.previous], ["Braga", "Porto"]);
  // The later turn was read once the earlier one's facts were written (both running at once, it would have seen Lisbon).
  const later = agent.llm.requests.filter((r) => schemaName(r.body) === "user_memory_extraction").at(-1)!;
  assert.match(promptOf(later.body), /moved on to Braga/);
  assert.match(promptOf(later.body), /home_city: Porto/);
});

forget.run();
