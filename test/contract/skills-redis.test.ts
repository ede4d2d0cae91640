import { suite } from "uvu";
import * as assert from "uvu/assert";
import { createSkillStore } from "../../runtime/skills/store/index.js";
import { startRedisServer } from "../support/redis.js";
import { freshRedisStores } from "./fresh-stores.js";
import { skill, skillStoreCases } from "./skills.cases.js";

const server = await startRedisServer();
const stores = freshRedisStores(() => ({ REDIS_URL: server.url }));

const layout = suite("skill registry (redis key layout)");

layout("one hash tag per skill, the index under the namespace's tag, no TTL (skills are configuration)", async () => {
  const store = stores.store();
  const skills = createSkillStore({ store, env: {} });
  await skills.publish(skill("1.0.0", { resources: [{ path: "references/a.md", bytes: 1, text: "A" }] }));
  const tagged = `manifold:v1:${store.namespace}:{travel/packing-advice}:skill`;
  assert.equal((await store.client.keys(`manifold:v1:${store.namespace}:*`)).sort(), [`${tagged}:body`, `${tagged}:meta`, `${tagged}:res`]);
  assert.equal((await store.client.keys(`manifold:v1:{${store.namespace}}:skills:*`)).sort(), [
    `manifold:v1:{${store.namespace}}:skills:index:travel`,
    `manifold:v1:{${store.namespace}}:skills:namespaces`,
  ]);
  for (const key of [`${tagged}:meta`, `${tagged}:body`, `${tagged}:res`]) assert.is(await store.client.pttl(key), -1, key);
  assert.equal(await store.client.hkeys(`${tagged}:res`), ["1.0.0\nreferences/a.md"], "one field per resource");
});

layout.run();

skillStoreCases(
  "redis",
  async () => {
    const skills = createSkillStore({ store: stores.store(), env: {} });
    if (skills.kind !== "redis") throw new Error("expected the redis adapter");
    return skills;
  },
  async () => {
    await stores.closeAll();
    await server.close();
  },
);
