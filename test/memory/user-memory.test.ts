/**
 * User memory in a served agent with chat, the real `openai` client against a scripted server: the
 * server answers `user_memory_extraction` requests (told apart by their response_format name) with the
 * facts a test queues, plans with one echo step, and writes summaries and answers. Extraction runs after
 * each turn in the background; the tests wait for it with the memory's whenIdle(), never a sleep.
 *
 * Shown: a fact stated in one session recalled into the planning (and synthesis) prompt of another
 * session of the same user and never another user's; a contradicted fact replaced, its previous value
 * kept; a deleted fact never recalled again; key-like values refused (and the prompt says so);
 * anonymous callers getting no memory; `/memory/facts` scoped to the caller.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { createLlmDebugStore } from "../../runtime/llm/index.js";
import { factsCall as facts, type MemoryAgent, plans, promptOf, schemaName, startMemoryAgent, turn } from "./user-support.js";

// X-User-ID names the user only behind a trusted gateway (§5.5): these agents are deployed so.
process.env["MANIFOLD_TRUST_IDENTITY_HEADERS"] = "true";
process.env["MANIFOLD_LLM_DEBUG_ENABLED"] = "true";

type Context = { agent: MemoryAgent };
const memory = suite<Context>("user memory in an agent with chat");

memory.before.each(async (context) => {
  context.agent = await startMemoryAgent();
});

memory.after.each(async ({ agent }) => {
  await agent.close();
});

memory(
  "a fact stated in one session is recalled into another session's plan and synthesis for the same user, never for another user",
  async ({ agent: context }) => {
    context.extractions.push([{ key: "home_city", value: "Lisbon", action: "add" }]);
    const first = await turn(context, "I live in Lisbon; what is the weather like?", "alice");
    const listed = await facts(context, "alice");
    assert.is(listed.status, 200);
    assert.is(listed.body.user, "alice");
    assert.equal(
      listed.body.facts.map((f: any) => [f.key, f.value, f.source.session_id, f.source.request_id]),
      [["home_city", "Lisbon", first.session_id, first.request_id]],
    );
    assert.ok(typeof listed.body.facts[0].source.message_id === "string");
    assert.equal(listed.body.summary.text, "A traveller.");

    const seen = context.llm.requests.length;
    await turn(context, "What should I pack for the weekend?", "alice");
    const [plan] = plans(context, seen);
    assert.match(plan!, /What you know about this user/);
    assert.match(plan!, /home_city: Lisbon/);
    assert.match(plan!, /<tool_output source="user_memory">/, "quoted as data");
    const synthesis = context.llm.requests.slice(seen).find((r) => schemaName(r.body) === undefined && !promptOf(r.body).startsWith("Write"));
    assert.match(promptOf(synthesis!.body), /home_city: Lisbon/, "the synthesis sees it too");

    const before = context.llm.requests.length;
    await turn(context, "What should I pack for the weekend?", "bob");
    assert.not.match(plans(context, before)[0]!, /Lisbon|What you know about this user/);

    const record = await createLlmDebugStore({ env: process.env }).get(first.request_id);
    const types = record?.interactions.map((i) => i.type) ?? [];
    assert.ok(types.includes("user_memory_extraction") && types.includes("user_memory_summary"), types.join());
  },
);

memory("a contradicted fact is replaced: the recall shows Porto, not Lisbon, and the fact keeps Lisbon as its previous value", async ({ agent: context }) => {
  context.extractions.push([{ key: "home_city", value: "Lisbon", action: "add" }], [{ key: "home_city", value: "Porto", action: "add" }]);
  await turn(context, "I live in Lisbon.", "alice");
  await turn(context, "I moved to Porto last month.", "alice");
  const [fact] = (await facts(context, "alice")).body.facts;
  assert.equal([fact.key, fact.value, fact.previous], ["home_city", "Porto", "Lisbon"]);
  const seen = context.llm.requests.length;
  await turn(context, "Any events near home this weekend?", "alice");
  const plan = plans(context, seen)[0]!;
  assert.match(plan, /home_city: Porto/);
  assert.not.match(plan, /Lisbon/);
});

memory("a deleted fact is never recalled again; another user can neither see nor delete it", async ({ agent: context }) => {
  context.extractions.push([
    { key: "home_city", value: "Lisbon", action: "add" },
    { key: "diet", value: "vegetarian", action: "add" },
  ]);
  await turn(context, "I live in Lisbon and I am vegetarian.", "alice");
  assert.equal((await facts(context, "bob")).body.facts, [], "bob sees none of alice's facts");
  assert.is((await facts(context, "bob", "DELETE", "/memory/facts/home_city")).status, 404, "bob cannot delete alice's fact");
  assert.is((await facts(context, "alice", "DELETE", "/memory/facts/home_city")).status, 204);
  assert.is((await facts(context, "alice", "DELETE", "/memory/facts/home_city")).status, 404);
  assert.equal(
    (await facts(context, "alice")).body.facts.map((f: any) => f.key),
    ["diet"],
  );
  const seen = context.llm.requests.length;
  await turn(context, "Where do I live?", "alice");
  const plan = plans(context, seen)[0]!;
  assert.match(plan, /diet: vegetarian/);
  assert.not.match(plan, /Lisbon|home_city/);
  assert.equal((await facts(context, "alice", "DELETE")).body, { deleted: 1 });
  assert.equal((await facts(context, "alice")).body.facts, []);
});

memory("key-like values are refused, and the extraction prompt says never to keep secrets", async ({ agent: context }) => {
  context.extractions.push([
    { key: "api_key", value: "sk-proj-Abc123Def456Ghi789", action: "add" },
    { key: "work_account", value: "AKIAIOSFODNN7EXAMPLE", action: "add" },
    { key: "diet", value: "vegan", action: "add" },
  ]);
  // The model writes the summary: one that states a credential is not kept either.
  context.summaries.push("A vegan traveller whose card PIN is 4821.");
  await turn(context, "My key is sk-proj-Abc123Def456Ghi789 and my AWS id AKIAIOSFODNN7EXAMPLE; I am vegan.", "alice");
  const listed = (await facts(context, "alice")).body;
  assert.equal(
    listed.facts.map((f: any) => [f.key, f.value]),
    [["diet", "vegan"]],
  );
  assert.is(listed.summary, undefined);
  const extraction = context.llm.requests.find((r) => schemaName(r.body) === "user_memory_extraction")!;
  assert.match(extraction.body.messages[0].content, /Never keep a secret[^\n]*API keys, access tokens/);
});

memory("an anonymous caller gets no memory: nothing extracted, nothing recalled, /memory/facts is 401", async ({ agent: context }) => {
  context.extractions.push([{ key: "home_city", value: "Lisbon", action: "add" }]);
  await turn(context, "I live in Lisbon.");
  await turn(context, "Where do I live?");
  assert.not.ok(
    context.llm.requests.some((r) => schemaName(r.body) === "user_memory_extraction"),
    "no extraction request",
  );
  assert.ok(plans(context).every((plan) => !/What you know about this user/.test(plan)));
  const listed = await facts(context);
  assert.equal([listed.status, listed.body.error.code], [401, "UNAUTHORIZED"]);
  assert.is((await facts(context, undefined, "DELETE", "/memory/facts/home_city")).status, 401);
  assert.equal((await context.facts.users()).users, []);
});

memory.run();
