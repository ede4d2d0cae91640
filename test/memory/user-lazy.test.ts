/**
 * User memory in an agent served without any of memory's parts (how a generated agent is served): the
 * memory loads on its first use. Shown: `/memory/facts` answered by the loaded routes from the first
 * request (an anonymous caller's 401); a fact stated in a chat turn extracted by the memory that turn
 * loaded, listed under `/memory/facts` and recalled into the next plan of the same user only. The
 * extraction runs in the background and is waited for by reading `/memory/facts` until it lists the fact.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { factsCall as facts, plans, startMemoryAgent, turnAnswered, type MemoryAgent } from "./user-support.js";

process.env["MANIFOLD_TRUST_IDENTITY_HEADERS"] = "true";

let agent: MemoryAgent;
test.before(async () => {
  agent = await startMemoryAgent({ lazy: true });
});
test.after(async () => {
  await agent.close();
});

/** The user's facts once the extraction has stored some (each read is a real request; bounded in reads, not time). */
async function factsOnceStored(user: string): Promise<{ key: string; value: string }[]> {
  for (let read = 0; read < 2_000; read += 1) {
    const listed = await facts(agent, user);
    assert.is(listed.status, 200);
    if (listed.body.facts.length > 0) return listed.body.facts;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error("the extraction stored no fact");
}

test("the first /memory/facts request is answered by memory's own route: an anonymous caller's 401", async () => {
  const listed = await facts(agent);
  assert.equal([listed.status, listed.body.error.code], [401, "UNAUTHORIZED"]);
});

test("a fact stated in chat is extracted by the memory loaded on first use, listed, and recalled for that user only", async () => {
  agent.extractions.push([{ key: "home_city", value: "Lisbon", action: "add" }]);
  await turnAnswered(agent, "I live in Lisbon; what is the weather like?", "alice");
  assert.equal(
    (await factsOnceStored("alice")).map((fact) => [fact.key, fact.value]),
    [["home_city", "Lisbon"]],
  );
  const seen = agent.llm.requests.length;
  await turnAnswered(agent, "What should I pack for the weekend?", "alice");
  assert.match(plans(agent, seen)[0]!, /home_city: Lisbon/);
  const before = agent.llm.requests.length;
  await turnAnswered(agent, "What should I pack for the weekend?", "bob");
  assert.not.match(plans(agent, before)[0]!, /Lisbon|What you know about this user/);
});

test.run();
