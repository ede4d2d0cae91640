/**
 * The read side's window of a domain's newest episodes, across replicas on a real Redis: a replica's
 * read sees what another replica recorded, also an episode appended after a newer one was read
 * (each replica stamps ids with its own clock just before appending, so ids do not arrive in order).
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { ANONYMOUS } from "../../runtime/context/index.js";
import { createEpisodicMemory, newRecordId, type Episode, type EpisodicMemory } from "../../runtime/memory/episodic/index.js";
import { createStore, type RedisStore } from "../../runtime/store/index.js";
import { freshRedisStores } from "../contract/fresh-stores.js";
import { agentSpec, memoryLog } from "../orchestration/support.js";
import { startRedisServer } from "../support/redis.js";

interface Context {
  redis: Awaited<ReturnType<typeof startRedisServer>>;
  stores: ReturnType<typeof freshRedisStores>;
}
const test = suite<Context>("episodic memory: the read window across replicas", {} as Context);

test.before(async (context) => {
  context.redis = await startRedisServer();
  context.stores = freshRedisStores(() => ({ REDIS_URL: context.redis.url }));
});
test.after(async ({ redis, stores }) => {
  await stores.closeAll();
  await redis.close();
});

const spec = agentSpec("travel-agent", { natural: true });

function episode(ms: number, entity: string, summary: string): Episode {
  return {
    id: newRecordId(ms),
    domain: "travel-agent",
    status: "completed",
    entities: [entity],
    events: [{ kind: "request", text: summary }],
    summary,
    summary_outcome: "complete",
    created_at: new Date(ms).toISOString(),
  };
}

async function read(memory: EpisodicMemory, request: string): Promise<{ text: string; entities: string[] }> {
  const gathered = await memory.source.gather({
    requestId: `req-${Math.random().toString(16).slice(2)}`,
    request,
    identity: ANONYMOUS,
    conversationId: undefined,
    budgetBytes: 3072,
    signal: new AbortController().signal,
    llm: undefined,
    record: undefined,
  });
  return { text: gathered?.section?.text ?? "", entities: (gathered?.evidence as { entities?: string[] } | undefined)?.entities ?? [] };
}

test("a replica reads the episodes another recorded, also one appended after a newer one was read", async ({ stores }) => {
  const first = stores.store();
  const env = stores.envOf(first);
  const second = createStore({ env, log: () => undefined }) as RedisStore;
  const replica = (store: RedisStore): EpisodicMemory =>
    createEpisodicMemory({ services: { spec, agent: spec.agent!, env, llm: undefined, log: () => memoryLog().log }, store, env });
  const [reader, writer] = [replica(first), replica(second)];
  try {
    const now = Date.now();
    await writer.store.append(episode(now - 10_000, "destination:lisbon", "Lisbon: linen shirts were suggested."));
    assert.equal((await read(reader, "Packing for Lisbon?")).entities, ["destination:lisbon"]);

    // Newer than what the reader holds: the usual case.
    await writer.store.append(episode(now - 5_000, "destination:kyoto", "Kyoto: a rail pass was suggested."));
    // Older than what the reader holds (its replica's clock is behind, or its append was slow).
    await writer.store.append(episode(now - 20_000, "destination:porto", "Porto: a rain jacket was suggested."));

    const kyoto = await read(reader, "And for Kyoto?");
    assert.equal(kyoto.entities, ["destination:kyoto"]);
    assert.match(kyoto.text, /a rail pass was suggested/);
    const porto = await read(reader, "And for Porto?");
    assert.equal(porto.entities, ["destination:porto"], "the late episode's entity is known");
    assert.match(porto.text, /a rain jacket was suggested/);
  } finally {
    await Promise.all([reader.stop(), writer.stop()]);
    await second.close();
  }
});

test.run();
