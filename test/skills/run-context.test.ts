/**
 * Skills at run time over HTTP, with the real `openai` client against the scripted server, a real
 * tool and a real registry: a skill's instructions change the plan (and reach the synthesis), the
 * pinned version is the one used, a resource the instructions reference is read on demand, a skill
 * that does not fit the budget is left out whole, and the execution record keeps which skill
 * versions shaped the run (`context.skills`).
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { createManualClock, type ManualClock } from "../support/clock.js";
import { planStep, planText } from "../orchestration/support.js";
import { skill, skillsOf, startSkillsNetwork, systemOf, type SkillsNetwork } from "./run-support.js";

interface Context {
  network: SkillsNetwork;
  clock: ManualClock;
}
const test = suite<Context>("skills at run time", {} as Context);

const ECHO_WEATHER = planText([planStep("w", "worker", "echo", { checked: "weather", city: "Lisbon" })]);
const ADD = planText([planStep("sum", "worker", "add", { a: 20, b: 22 })]);
const PACKING = "Before advising what to pack, always check the destination's weather first with worker.echo.";

test.before.each(async (context) => {
  context.clock = createManualClock();
  context.network = await startSkillsNetwork({ clock: context.clock });
  // Plan A when the planning prompt holds the skill's instruction, plan B otherwise.
  context.network.answers = {
    routing_plan: (body) => ({ text: systemOf(body).includes(PACKING) ? ECHO_WEATHER : ADD }),
    text: () => ({ text: "Pack a light jacket." }),
  };
});
test.after.each(async ({ network }) => {
  await network.close();
});

const packingAdvice = (version = "1.0.0", instructions = PACKING) =>
  skill("packing-advice", instructions, { version, description: "Packing advice for a trip: what to pack for the destination's weather." });

test("a skill's instructions change the plan: the run calls the tool the skill asks for, and the synthesis sees them too", async ({ network }) => {
  await network.store.publish(packingAdvice());
  const { status, body } = await network.ask("What should I pack for Lisbon next week?", "req-packing");
  assert.is(status, 200, JSON.stringify(body));
  const [plan] = network.received("routing_plan");
  assert.match(systemOf(plan), "## Skills");
  assert.match(systemOf(plan), `### packing-advice (travel@1.0.0)\n\n${PACKING}`);
  assert.equal(
    network.tools.calls.map((c) => [c.capability, c.input]),
    [["echo", { checked: "weather", city: "Lisbon" }]],
  );
  const [synthesis] = network.received("text");
  assert.match(systemOf(synthesis), PACKING, "skills shape the answer too");
});

test("a request the skill does not match is planned without it", async ({ network }) => {
  await network.store.publish(packingAdvice());
  const { status, body } = await network.ask("add 20 and 22", "req-sum");
  assert.is(status, 200, JSON.stringify(body));
  assert.not.match(systemOf(network.received("routing_plan")[0]), "## Skills");
  assert.equal(
    network.tools.calls.map((c) => c.capability),
    ["add"],
  );
  const record = (await network.executions.get(String(body["plan_id"])))!;
  assert.is(record.context?.["skills"], undefined, "no skill shaped the run");
});

test("a pinned older version is used over a newer one; unpinned, the newest (once the index is listed again)", async ({ network, clock }) => {
  await network.store.publish(packingAdvice("1.0.0", "Version one: check the weather with worker.echo before packing."));
  await network.store.publish(packingAdvice("2.0.0", "Version two: list the travel documents before packing."));
  await network.store.pin("travel", "packing-advice", "1.0.0");
  const first = await network.ask("What should I pack for Lisbon?", "req-pinned");
  assert.is(first.status, 200, JSON.stringify(first.body));
  const pinned = systemOf(network.received("routing_plan")[0]);
  assert.match(pinned, "### packing-advice (travel@1.0.0)\n\nVersion one:");
  assert.not.match(pinned, "Version two");
  const record = (await network.executions.get(String(first.body["plan_id"])))!;
  assert.equal(
    skillsOf(record).map((s) => s.version),
    ["1.0.0"],
  );

  await network.store.pin("travel", "packing-advice", undefined);
  // The compact index is reused for a few seconds (MANIFOLD_SKILL_* README): a pin shows once it is listed again.
  await clock.advance(5_000);
  const second = await network.ask("What should I pack for Lisbon?", "req-unpinned");
  assert.is(second.status, 200, JSON.stringify(second.body));
  const unpinned = systemOf(network.received("routing_plan")[1]);
  assert.match(unpinned, "### packing-advice (travel@2.0.0)\n\nVersion two:");
  assert.not.match(unpinned, "Version one");
  const again = (await network.executions.get(String(second.body["plan_id"])))!;
  assert.equal(
    skillsOf(again).map((s) => s.version),
    ["2.0.0"],
  );
});

test("a version retired while the index is reused is never activated again", async ({ network }) => {
  await network.store.publish(packingAdvice());
  assert.is((await network.ask("What should I pack for Lisbon?", "req-before")).status, 200);
  assert.match(systemOf(network.received("routing_plan")[0]), "### packing-advice (travel@1.0.0)");
  await network.store.retire("travel", "packing-advice", "1.0.0");
  const { status, body } = await network.ask("What should I pack for Lisbon?", "req-after");
  assert.is(status, 200, JSON.stringify(body));
  assert.not.match(systemOf(network.received("routing_plan")[1]), "## Skills");
  assert.equal(skillsOf(await network.executions.get(String(body["plan_id"]))), []);
});

test("a resource the instructions reference is read on demand into the prompt; a request that does not activate the skill reads nothing", async ({
  network,
}) => {
  await network.store.publish(
    packingAdvice("1.0.0", `${PACKING}\nThen go through [the checklist](references/packing-checklist.md). Never read assets/logo.png aloud.`),
  );
  // The checklist is referenced; the notes file only inside a fenced example, so it is never read.
  const published = await network.store.publish({
    ...packingAdvice("1.1.0", `${PACKING}\nThen go through [the checklist](references/packing-checklist.md).\n\n\`\`\`sh\ncat references/notes.md\n\`\`\``),
    resources: [
      { path: "references/packing-checklist.md", bytes: 40, text: "CHECKLIST: umbrella, adapter, passport.\n" },
      { path: "references/notes.md", bytes: 18, text: "NOTES: not needed\n" },
    ],
  });
  assert.is(published.version, "1.1.0");

  const other = await network.ask("add 20 and 22", "req-no-skill");
  assert.is(other.status, 200, JSON.stringify(other.body));
  assert.equal(network.resourceReads, [], "a skill that is not active reads no resource");
  assert.not.match(systemOf(network.received("routing_plan")[0]), "CHECKLIST");

  const { status, body } = await network.ask("What should I pack for Lisbon?", "req-resource");
  assert.is(status, 200, JSON.stringify(body));
  assert.equal(network.resourceReads, ["travel/packing-advice@1.1.0:references/packing-checklist.md"]);
  const prompt = systemOf(network.received("routing_plan")[1]);
  assert.match(prompt, "#### Resource references/packing-checklist.md\n\nCHECKLIST: umbrella, adapter, passport.");
  assert.not.match(prompt, "NOTES");
  const record = (await network.executions.get(String(body["plan_id"])))!;
  assert.equal(record.context?.["skills"], [
    { namespace: "travel", name: "packing-advice", version: "1.1.0", digest: published.digest, resources: ["references/packing-checklist.md"] },
  ]);
});

test("a long resource is shown cut to 4 KiB with a note", async ({ network }) => {
  const long = `${"umbrella ".repeat(1000)}END-OF-CHECKLIST`;
  await network.store.publish({
    ...packingAdvice("1.0.0", `${PACKING} Read references/checklist.md.`),
    resources: [{ path: "references/checklist.md", bytes: Buffer.byteLength(long), text: long }],
  });
  const { status } = await network.ask("What should I pack for Lisbon?", "req-long");
  assert.is(status, 200);
  const prompt = systemOf(network.received("routing_plan")[0]);
  assert.match(prompt, "#### Resource references/checklist.md\n\numbrella umbrella");
  assert.match(prompt, `[… cut: 4096 of ${Buffer.byteLength(long)} bytes shown]`);
  assert.not.match(prompt, "END-OF-CHECKLIST");
});

test("the execution record keeps which skill versions shaped the run, with their digests", async ({ network }) => {
  const published = await network.store.publish(packingAdvice());
  const { body } = await network.ask("What should I pack for Lisbon?", "req-record");
  const record = (await network.executions.get(String(body["plan_id"])))!;
  assert.equal(record.context?.["skills"], [{ namespace: "travel", name: "packing-advice", version: "1.0.0", digest: published.digest, resources: [] }]);
});

test.run();
