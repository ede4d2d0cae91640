/**
 * The Memory view on the embedded store (no Redis) says what is true there. The embedded store and
 * registry are per process: a dashboard beside the agents reads their memory, so with agents and no
 * user yet it says how users come to have memory, and lists them once they do; a dashboard alone in
 * its process says it cannot see any agent's memory and how to fix that. Never "enter a user id".
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { serveDashboard } from "../../runtime/dashboard/index.js";
import { createRegistry } from "../../runtime/discovery/index.js";
import { createFactStore } from "../../runtime/memory/index.js";
import { createStore } from "../../runtime/store/index.js";
import { eventually } from "../support/wait.js";
import { get, registration } from "./support.js";

// Each case its own namespace of the process-wide embedded store.
const envOf = (namespace: string) => ({ MANIFOLD_REDIS_NAMESPACE: namespace });
const quiet = (): void => undefined;

test("alone in its process: the note says it sees no agent's memory and how to share the store", async () => {
  const dashboard = await serveDashboard({ port: 0, handleSignals: false, log: quiet, env: envOf("memory-alone") });
  try {
    const users = (await get(`${dashboard.url}/api/memory/users`)).body;
    assert.equal(users.users, []);
    assert.match(users.note, /no agent runs in its process/);
    assert.match(users.note, /REDIS_URL/);
    assert.not.match(users.note, /enter a user id/i);
  } finally {
    await dashboard.close();
  }
});

test("beside the agents: no user yet says who gets memory; a user with facts is then listed", async () => {
  const env = envOf("memory-beside");
  const store = createStore({ env });
  const registry = createRegistry({ store, cache: false });
  await registry.register(registration({ name: "travel-agent", type: "agent" }));
  const dashboard = await serveDashboard({ port: 0, handleSignals: false, log: quiet, env });
  try {
    let users: any;
    await eventually("the agent seen", async () => {
      users = (await get(`${dashboard.url}/api/memory/users`)).body;
      return /no user memory yet/.test(users.note ?? "");
    });
    assert.equal(users.users, []);
    assert.match(users.note, /identified callers/);
    assert.not.match(users.note, /enter a user id/i);

    const facts = createFactStore({ store, env });
    const at = new Date().toISOString();
    await facts.put("ada@example.com", { key: "home_city", value: "Lisbon", source: { session_id: "s-1", message_id: "m-1" }, created_at: at, updated_at: at });
    const listed = (await get(`${dashboard.url}/api/memory/users`)).body;
    assert.equal(listed.users, ["ada@example.com"]);
    assert.is(listed.note, undefined);
    await facts.close();
  } finally {
    await dashboard.close();
    await registry.close();
    await store.close();
  }
});

test.run();
