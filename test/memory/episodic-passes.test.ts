/**
 * Episodic memory's background passes on a real Redis, paced by a manual clock, with the real
 * `openai` client against the scripted server and telemetry to a local OTLP receiver: three replicas
 * of an agent whose passes fire at the same moment reflect on each entity exactly once (one
 * `reflection` call and one knowledge fragment per entity with two or more episodes, every episode
 * marked once); the sweep deletes episodes and fragments past the retention and reports how many.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { createLlmProvider, resolveLlmConfig } from "../../runtime/llm/index.js";
import { createEpisodicMemory, DEFAULT_CLAIM_LEASE_MS, newRecordId, type EpisodicMemory } from "../../runtime/memory/episodic/index.js";
import { createStore, type RedisStore } from "../../runtime/store/index.js";
import { initTelemetry, shutdownTelemetry } from "../../runtime/telemetry/index.js";
import { createManualClock } from "../support/clock.js";
import { startRedisServer } from "../support/redis.js";
import { startScriptedLlm, type ScriptedLlm } from "../support/scripted-llm.js";
import { eventually } from "../support/wait.js";
import { agentSpec, memoryLog } from "../orchestration/support.js";
import { freshRedisStores } from "../contract/fresh-stores.js";
import { exportToReceiver, startOtlpReceiver } from "../telemetry/otlp-receiver.js";
import { defaultAnswers, episode, kindOf, userOf } from "./episodic-support.js";

interface Context {
  receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
  redis: Awaited<ReturnType<typeof startRedisServer>>;
  stores: ReturnType<typeof freshRedisStores>;
  llm: ScriptedLlm;
}
const test = suite<Context>("episodic memory: reflection and sweep passes", {} as Context);

const HOUR = 3_600_000;
const INTERVAL = 10 * 60_000;
const spec = agentSpec("travel-agent", { natural: true });

test.before(async (context) => {
  context.receiver = await startOtlpReceiver();
  exportToReceiver(context.receiver.url);
  await initTelemetry({ serviceName: "episodic-passes" });
  context.redis = await startRedisServer();
  context.stores = freshRedisStores(() => ({ REDIS_URL: context.redis.url }));
  context.llm = await startScriptedLlm((body) => defaultAnswers[kindOf(body)](body));
});
test.after(async ({ receiver, redis, stores, llm }) => {
  await stores.closeAll();
  await llm.close();
  await redis.close();
  await shutdownTelemetry();
  await receiver.close();
});

test("three replicas' passes fire together: each entity is reflected on once, into one fragment, and every episode marked once", async ({
  receiver,
  stores,
  llm,
}) => {
  const clock = createManualClock();
  const first = stores.store();
  const env = stores.envOf(first);
  const extra: RedisStore[] = [];
  const replica = (store: RedisStore): EpisodicMemory => {
    const provider = createLlmProvider(
      resolveLlmConfig({ option: { baseUrl: llm.baseUrl, apiKey: "sk-passes", model: "test-model", maxRetries: 0 }, env: {} })!,
    );
    return createEpisodicMemory({ services: { spec, agent: spec.agent!, env, llm: provider, log: () => memoryLog().log }, store, clock, env });
  };
  const memories = [first, ...[1, 2].map(() => createStore({ env, log: () => undefined }) as RedisStore)].map((store, i) => {
    if (i > 0) extra.push(store as RedisStore);
    return replica(store as RedisStore);
  });
  const { store } = memories[0]!;
  const old = clock.now() - 2 * HOUR;
  const seeded = [
    episode(old, ["destination:lisbon"], "Lisbon run one"),
    episode(old + 1, ["destination:lisbon", "traveller:ana"], "Lisbon run two"),
    episode(old + 2, ["destination:lisbon"], "Lisbon run three"),
    episode(old + 3, ["destination:kyoto"], "Kyoto run one"),
    episode(old + 4, ["destination:kyoto"], "Kyoto run two"),
    episode(old + 5, ["destination:oslo"], "Oslo, once"),
  ];
  for (const e of seeded) await store.append(e);
  const young = episode(clock.now() - 60_000, ["destination:lisbon"], "Lisbon, too recent");
  await store.append(young);

  for (const memory of memories) memory.start();
  await clock.advance(INTERVAL);
  await eventually("two fragments", async () => (await store.knowledge({ limit: 10 })).length === 2);
  await Promise.all(memories.map((m) => m.stop()));

  const reflections = llm.requests.filter((r) => kindOf(r.body) === "reflection");
  assert.equal(reflections.map((r) => /Entity: (.*)/.exec(userOf(r))?.[1]).sort(), ["destination:kyoto", "destination:lisbon"], "one call per entity");
  assert.match(userOf(reflections.find((r) => userOf(r).includes("lisbon"))!), /Lisbon run one[\s\S]*Lisbon run two[\s\S]*Lisbon run three/);
  assert.not.match(userOf(reflections.find((r) => userOf(r).includes("lisbon"))!), /too recent/);
  const lisbon = await store.knowledge({ entity: "destination:lisbon", limit: 10 });
  assert.is(lisbon.length, 1);
  assert.equal(
    lisbon[0]!.episode_ids,
    seeded.slice(0, 3).map((e) => e.id),
  );
  assert.is(lisbon[0]!.text, "Travellers asking about destination:lisbon want light luggage.");
  assert.match(lisbon[0]!.pass_id, /^reflect-[0-9a-f]{16}$/);
  assert.is((await store.knowledge({ entity: "destination:kyoto", limit: 10 })).length, 1);
  for (const e of seeded) assert.ok((await store.get(e.id))?.reflected_at, `${e.summary} reflected`);
  assert.is((await store.get(young.id))?.reflected_at, undefined, "younger than the age threshold: left for a later pass");

  // Three passes ran (one per replica); one claimed the six episodes and reflected on two entities.
  await receiver.until(() => receiver.spans.filter((s) => s.name === "memory.reflection_pass").length === 3, "three pass spans");
  const passes = receiver.spans.filter((s) => s.name === "memory.reflection_pass");
  assert.ok(passes.every((p) => /^reflect-[0-9a-f]{16}$/.test(String(p.attributes["pass_id"])) && p.attributes["domain"] === "travel-agent"));
  assert.ok(passes.every((p) => p.attributes["age_threshold"] === HOUR));
  assert.equal(passes.map((p) => p.attributes["claimed_count"]).sort(), [0, 0, 6]);
  const working = passes.find((p) => p.attributes["claimed_count"] === 6)!;
  await receiver.until(() => receiver.spans.filter((s) => s.name === "memory.reflection").length === 2, "two reflection spans");
  const children = receiver.spans.filter((s) => s.name === "memory.reflection");
  assert.ok(children.every((c) => c.parentSpanId === working.spanId && c.traceId === working.traceId));
  assert.equal(children.map((c) => c.attributes["entity_id"]).sort(), ["kyoto", "lisbon"]);
  const processed = children.flatMap((c) => c.events.filter((e) => e.name === "memory.reflection.entity_processed").map((e) => e.attributes));
  assert.equal(processed.map((a) => [a["entity_type"], a["fragments"], a["pass_id"]]).length, 2);
  assert.ok(processed.every((a) => a["pass_id"] === working.attributes["pass_id"] && a["fragments"] === 1));
  assert.ok(children.every((c) => c.events.some((e) => e.name === "memory.reflection.llm_response")));
  assert.not.match(JSON.stringify([...passes, ...children]), /luggage|Lisbon run/, "no fragment or summary in telemetry");
  await Promise.all(extra.map((s) => s.close()));
});

test("a pass that dies after claiming: the first pass after its lease takes the episodes over and reflects on them once; the dead pass's late end stores nothing", async ({
  stores,
  llm,
}) => {
  const clock = createManualClock();
  const store = stores.store();
  const env = stores.envOf(store);
  const provider = createLlmProvider(resolveLlmConfig({ option: { baseUrl: llm.baseUrl, apiKey: "sk-passes", model: "test-model", maxRetries: 0 }, env: {} })!);
  const memory = createEpisodicMemory({ services: { spec, agent: spec.agent!, env, llm: provider, log: () => memoryLog().log }, store, clock, env });
  const episodes = memory.store;
  const seeded = [
    episode(clock.now() - 2 * HOUR, ["destination:porto"], "Porto run one"),
    episode(clock.now() - 2 * HOUR + 1, ["destination:porto"], "Porto run two"),
  ];
  for (const e of seeded) await episodes.append(e);
  const dead = "reflect-00000000000000de";
  assert.is((await episodes.claimForReflection(dead, new Date(clock.now() - HOUR).toISOString(), 10)).length, 2, "claimed, and never completed");
  const calls = () => llm.requests.filter((r) => kindOf(r.body) === "reflection" && userOf(r).includes("destination:porto")).length;

  // One pass per interval: the next is scheduled once the one before has finished.
  const pass = async (): Promise<void> => {
    await clock.advance(INTERVAL);
    await eventually("the next pass scheduled", () => clock.pending() === 1);
  };
  memory.start();
  for (let t = INTERVAL; t < DEFAULT_CLAIM_LEASE_MS; t += INTERVAL) await pass();
  assert.is(calls(), 0, "within the lease the episodes are the dead pass's");
  await pass();
  assert.is((await episodes.knowledge({ entity: "destination:porto", limit: 10 })).length, 1, "the pass at the lease's end took them over");
  for (const e of seeded) assert.ok((await episodes.get(e.id))?.reflected_at, `${e.summary} reflected`);
  await episodes.completeReflection(
    dead,
    seeded.map((e) => e.id),
    [
      {
        id: newRecordId(clock.now()),
        domain: "travel-agent",
        entity: "destination:porto",
        text: "the dead pass's late knowledge",
        episode_ids: seeded.map((e) => e.id),
        pass_id: dead,
        created_at: new Date(clock.now()).toISOString(),
      },
    ],
  );
  await pass();
  await memory.stop();
  assert.is(clock.pending(), 0, "stop cleared the passes' timer");
  assert.is(calls(), 1, "one reflection call for the entity");
  const porto = await episodes.knowledge({ entity: "destination:porto", limit: 10 });
  assert.equal(
    porto.map((k) => k.text),
    ["Travellers asking about destination:porto want light luggage."],
  );
  assert.not.equal(porto[0]!.pass_id, dead);
});

test("a sweep pass past the retention deletes the expired episodes and fragments and reports the count", async ({ receiver, stores }) => {
  const clock = createManualClock();
  const store = stores.store();
  const env = { ...stores.envOf(store), MANIFOLD_MEMORY_RETENTION: "2h", MANIFOLD_MEMORY_REFLECTION_INTERVAL: "10m" };
  // No model: the reflection pass claims nothing, so only the sweep changes anything.
  const memory = createEpisodicMemory({ services: { spec, agent: spec.agent!, env, llm: undefined, log: () => memoryLog().log }, store, clock, env });
  const episodes = memory.store;
  const expired = [episode(clock.now() - 3 * HOUR, ["destination:lisbon"], "old one"), episode(clock.now() - 3 * HOUR + 1, ["destination:lisbon"], "old two")];
  const kept = episode(clock.now() - HOUR, ["destination:lisbon"], "recent");
  for (const e of [...expired, kept]) await episodes.append(e);
  const pass = "reflect-00000000000000f1";
  const claimed = await episodes.claimForReflection(pass, new Date(clock.now() - 2.5 * HOUR).toISOString(), 10);
  assert.is(claimed.length, 2);
  await episodes.completeReflection(
    pass,
    claimed.map((e) => e.id),
    [
      {
        id: newRecordId(clock.now() - 2.5 * HOUR),
        domain: "travel-agent",
        entity: "destination:lisbon",
        text: "old knowledge",
        episode_ids: claimed.map((e) => e.id),
        pass_id: pass,
        created_at: new Date(clock.now() - 2.5 * HOUR).toISOString(),
      },
    ],
  );
  const later = "reflect-00000000000000f2";
  assert.equal(
    (await episodes.claimForReflection(later, new Date(clock.now()).toISOString(), 10)).map((e) => e.id),
    [kept.id],
  );
  const fresh = {
    id: newRecordId(clock.now() - HOUR),
    domain: "travel-agent",
    entity: "destination:lisbon",
    text: "fresh knowledge",
    episode_ids: [kept.id],
    pass_id: later,
    created_at: new Date(clock.now() - HOUR).toISOString(),
  };
  await episodes.completeReflection(later, [kept.id], [fresh]);

  memory.start();
  await clock.advance(10 * 60_000);
  await receiver.until(() => receiver.spans.some((s) => s.name === "memory.sweep_pass" && s.attributes["deleted_count"] === 3), "the sweep pass span");
  await memory.stop();
  assert.equal(
    (await episodes.recent({ limit: 10 })).map((e) => e.id),
    [kept.id],
  );
  assert.equal(
    (await episodes.recent({ limit: 10, entity: "destination:lisbon" })).map((e) => e.id),
    [kept.id],
  );
  assert.equal(await episodes.knowledge({ limit: 10 }), [fresh]);
  for (const e of expired) assert.is(await episodes.get(e.id), undefined);
  const sweep = receiver.spans.find((s) => s.name === "memory.sweep_pass" && s.attributes["deleted_count"] === 3)!;
  assert.match(String(sweep.attributes["sweep_id"]), /^sweep-[0-9a-f]{16}$/);
  assert.is(sweep.attributes["interval"], 10 * 60_000);
  assert.is(typeof sweep.attributes["duration_ms"], "number");
  assert.is(sweep.parentSpanId, undefined, "a root span");
});

test.run();
