/**
 * `NAMESPACE` (SPEC Environment: "Cluster namespace used for discovery") scopes registrations and
 * lookups: two networks sharing one store (memory or a real redis-server) see only their own
 * components; an unset or empty NAMESPACE is the network every component joined before.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createRegistry, type Registry } from "../../runtime/discovery/index.js";
import { createStore, type Store } from "../../runtime/store/index.js";
import { startRedisServer, type RedisServer } from "../support/redis.js";
import { registration } from "../contract/registry.cases.js";

let redis: RedisServer | undefined;
let seq = 0;

test.after(async () => {
  await redis?.close();
});

const backends = {
  memory: async () => ({ MANIFOLD_REDIS_NAMESPACE: `ns-test-${++seq}` }),
  redis: async () => {
    redis ??= await startRedisServer();
    return { REDIS_URL: redis.url, MANIFOLD_REDIS_NAMESPACE: `ns-test-${++seq}` };
  },
};

for (const [name, storeEnv] of Object.entries(backends)) {
  test(`${name}: NAMESPACE scopes registrations and every lookup; unset and empty are the same network`, async () => {
    const env = await storeEnv();
    const stores: Store[] = [];
    const open = (namespace: string | undefined): Registry => {
      const store = createStore({ env });
      stores.push(store);
      return createRegistry({ store, cache: false, key: false, env: namespace === undefined ? {} : { NAMESPACE: namespace } });
    };
    try {
      const blue = open("blue");
      const green = open("green");
      const plain = open(undefined);
      const empty = open("");
      const inBlue = registration({ name: "pay-agent", type: "agent", caps: ["charge"] });
      const inGreen = registration({ name: "pay-agent", type: "agent", caps: ["charge"] });
      const inPlain = registration({ name: "pay-agent", type: "agent", caps: ["charge"] });
      await blue.register(inBlue);
      await green.register(inGreen);
      await plain.register(inPlain);

      for (const [registry, own] of [
        [blue, inBlue.id],
        [green, inGreen.id],
        [plain, inPlain.id],
        [empty, inPlain.id],
      ] as const) {
        assert.equal(
          (await registry.byName("pay-agent")).map((e) => e.id),
          [own],
        );
        assert.equal(
          (await registry.byType("agent")).map((e) => e.id),
          [own],
        );
        assert.equal(
          (await registry.byCapability("charge")).map((e) => e.id),
          [own],
        );
        assert.equal(
          (await registry.listAll()).map((e) => e.id),
          [own],
        );
      }
      assert.is(await blue.get(inGreen.id), undefined, "a record of another namespace is invisible by id too");
      assert.is(await green.unregister(inBlue.id), false, "and cannot be removed from there");
      assert.is((await blue.get(inBlue.id))?.id, inBlue.id);
      assert.throws(() => open("a:b"), /NAMESPACE/, "a namespace that would break the key layout fails by name");
    } finally {
      for (const s of stores) await s.close();
    }
  });
}

test.run();
