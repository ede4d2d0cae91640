import { randomBytes } from "node:crypto";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { createMemorySessionStore, createSessionStore } from "../../runtime/chat/index.js";
import { createStore } from "../../runtime/store/index.js";
import { sessionStoreCases } from "./sessions.cases.js";

sessionStoreCases("memory", async ({ ttlMs }) => {
  const store = createStore({ env: { MANIFOLD_REDIS_NAMESPACE: `m${randomBytes(4).toString("hex")}` }, log: () => undefined });
  const sessions = createSessionStore({ store, env: {}, ...(ttlMs !== undefined && { ttlMs }) });
  if (sessions.kind !== "memory") throw new Error("expected the memory adapter");
  return sessions;
});

const bounds = suite("chat session store (memory bounds)");

bounds("past its count or byte budget the least recently updated sessions are evicted, as if expired", async () => {
  let now = 1_000_000;
  const sessions = createMemorySessionStore({ maxSessions: 3, maxBytes: 20_000, now: () => now });
  const ids: string[] = [];
  for (let i = 0; i < 3; i++)
    ids.push((await sessions.create({ id: `00000000-0000-4000-8000-00000000000${i}`, userId: "u", metadata: {}, now: (now += 1) })).id);
  await sessions.append(ids[0]!, { id: "m", role: "user", content: "keep me", timestamp: new Date((now += 1)).toISOString(), metadata: {} });
  await sessions.create({ id: "00000000-0000-4000-8000-000000000009", userId: "u", metadata: {}, now: (now += 1) });
  assert.is(await sessions.get(ids[1]!), undefined, "the least recently updated went");
  assert.ok((await sessions.get(ids[0]!)) !== undefined);
  // 50 messages of 300 characters are about 30 KB: over the byte budget, older sessions go first.
  for (let i = 0; i < 50; i++) {
    await sessions.append(ids[0]!, { id: `m${i}`, role: "user", content: "x".repeat(300), timestamp: new Date((now += 1)).toISOString(), metadata: {} });
  }
  assert.is(await sessions.get(ids[2]!), undefined);
  assert.ok((await sessions.get(ids[0]!)) !== undefined, "the session being written is never the one evicted");
  assert.is(await sessions.activeSessionCount(), 4, "eviction, like expiry, does not decrement the counter");
});

bounds.run();
