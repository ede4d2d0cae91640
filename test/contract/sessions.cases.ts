/**
 * The chat session store contract: one suite, run against every adapter (sessions-memory.test.ts,
 * sessions-redis.test.ts, sessions-cluster.test.ts). Each test gets a fresh, empty store. No case is
 * skipped for any adapter.
 */
import { randomUUID } from "node:crypto";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import type { ChatMessage, ChatSessionStore } from "../../runtime/chat/index.js";
import { sleep } from "../support/wait.js";

export type SessionStoreFactory = (options: { readonly ttlMs?: number }) => Promise<ChatSessionStore>;

let clock = Date.parse("2030-01-01T00:00:00.000Z");
/** Strictly increasing timestamps, so ordering by updated_at is decidable. */
const tick = () => (clock += 1000);

function message(content: string, role: ChatMessage["role"] = "user", at = tick()): ChatMessage {
  return { id: randomUUID(), role, content, timestamp: new Date(at).toISOString(), metadata: role === "assistant" ? { tools_used: [] } : {} };
}

export function sessionStoreCases(name: string, create: SessionStoreFactory, teardown: () => Promise<void> = async () => undefined): void {
  const test = suite(`chat session store contract (${name})`);
  test.after(teardown);

  const newSession = async (sessions: ChatSessionStore, userId = "alice", metadata: Record<string, unknown> = {}) =>
    sessions.create({ id: randomUUID(), userId, metadata, now: tick() });

  test("a new session is empty and counted; an unknown one is undefined and an append to it creates nothing", async () => {
    const sessions = await create({});
    const made = await newSession(sessions, "alice", { channel: "web", tags: [], nested: {} });
    const read = await sessions.get(made.id);
    assert.equal(read, made);
    assert.equal([read!.title, read!.messages, read!.metadata], ["", [], { channel: "web", tags: [], nested: {} }]);
    assert.is(await sessions.activeSessionCount(), 1);
    const unknown = randomUUID();
    assert.is(await sessions.get(unknown), undefined);
    assert.is(await sessions.append(unknown, message("hello")), false);
    assert.is(await sessions.get(unknown), undefined);
    assert.equal(await sessions.list("alice", { offset: 0, limit: 20 }).then((l) => l.length), 1);
  });

  test("a session keeps its 50 newest messages, oldest first, each as appended", async () => {
    const sessions = await create({});
    const { id } = await newSession(sessions);
    const sent: ChatMessage[] = [];
    for (let i = 0; i < 60; i++) {
      const m = message(`m${i}`, i % 2 === 0 ? "user" : "assistant");
      sent.push(m);
      assert.ok(await sessions.append(id, m));
    }
    const read = await sessions.get(id);
    assert.equal(read!.messages, sent.slice(10));
    assert.is(read!.updated_at, sent[59]!.timestamp);
    assert.is((await sessions.list("alice", { offset: 0, limit: 5 }))[0]!.message_count, 50);
  });

  test("the first user message gives the title (57 + '...' over 60) and the preview (97 + '...' over 100); a set title stays", async () => {
    const sessions = await create({});
    const a = await newSession(sessions);
    await sessions.append(a.id, message("I am the assistant and speak first", "assistant"));
    const long = "Plan a week in Kyoto for two people in late March with a budget of 3000 EUR, trains only, and temples every day";
    await sessions.append(a.id, message(long));
    await sessions.append(a.id, message("a later user message"));
    const read = await sessions.get(a.id);
    assert.is(read!.title, `${long.slice(0, 57)}...`);
    assert.is(read!.title.length, 60);
    const [summary] = await sessions.list("alice", { offset: 0, limit: 1 });
    assert.is(summary!.preview, `${long.slice(0, 97)}...`);
    assert.is(summary!.title, read!.title);

    const exact = "x".repeat(60);
    const b = await newSession(sessions);
    await sessions.append(b.id, message(exact));
    assert.is((await sessions.get(b.id))!.title, exact);

    const c = await newSession(sessions);
    assert.ok(await sessions.setTitle(c.id, "Kept", tick()));
    await sessions.append(c.id, message("would have been the title"));
    assert.is((await sessions.get(c.id))!.title, "Kept");
  });

  test("a user's list is newest first by updated_at, paged by offset and limit, without other users' sessions", async () => {
    const sessions = await create({});
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await newSession(sessions)).id);
    await newSession(sessions, "bob");
    // Touch them out of creation order: 2, 0, 4 become the newest three.
    for (const i of [2, 0, 4]) await sessions.append(ids[i]!, message(`hello ${i}`));
    const all = await sessions.list("alice", { offset: 0, limit: 50 });
    assert.equal(
      all.map((s) => s.id),
      [ids[4], ids[0], ids[2], ids[3], ids[1]],
    );
    assert.equal(
      (await sessions.list("alice", { offset: 1, limit: 2 })).map((s) => s.id),
      [ids[0], ids[2]],
    );
    assert.equal(await sessions.list("alice", { offset: 5, limit: 2 }), []);
    assert.equal(Object.keys(all[0]!).sort(), ["created_at", "id", "message_count", "preview", "title", "updated_at"]);
    assert.equal([all[0]!.preview, all[0]!.message_count, all[4]!.preview], ["hello 4", 1, ""]);
    assert.is((await sessions.list("bob", { offset: 0, limit: 20 })).length, 1);
    // A page holds at most 50, whatever is asked for.
    for (let i = 0; i < 52; i++) await newSession(sessions, "carol");
    assert.is((await sessions.list("carol", { offset: 0, limit: 500 })).length, 50);
    assert.is((await sessions.list("carol", { offset: 50, limit: 500 })).length, 2);
    assert.equal(await sessions.list("nobody", { offset: 0, limit: 20 }), []);
  });

  test("sessions expire a TTL after their last save; every save refreshes it; expiry does not decrement the counter", async () => {
    // Redis expires keys by its own clock, so this waits in real time: each step has 1.2 s to spare
    // (the append lands before 3 s, the read within 3 s of it), which a loaded 2-core machine needs.
    const sessions = await create({ ttlMs: 3_000 });
    const kept = await newSession(sessions);
    const lapsed = await newSession(sessions);
    await sleep(1_800);
    assert.ok(await sessions.append(kept.id, message("still here")));
    await sleep(1_800);
    assert.ok((await sessions.get(kept.id)) !== undefined, "the append refreshed its TTL");
    assert.is(await sessions.get(lapsed.id), undefined);
    assert.is(await sessions.append(lapsed.id, message("too late")), false);
    assert.is(await sessions.setTitle(lapsed.id, "too late", tick()), false);
    assert.is(await sessions.delete(lapsed.id), false);
    assert.equal(
      (await sessions.list("alice", { offset: 0, limit: 20 })).map((s) => s.id),
      [kept.id],
    );
    assert.is(await sessions.activeSessionCount(), 2);
  });

  test("delete removes the session and its list entry; of ten racing deletes exactly one wins and the counter drops once", async () => {
    const sessions = await create({});
    const a = await newSession(sessions);
    const b = await newSession(sessions);
    assert.is(await sessions.activeSessionCount(), 2);
    const results = await Promise.all(Array.from({ length: 10 }, () => sessions.delete(a.id)));
    assert.is(results.filter(Boolean).length, 1);
    assert.is(await sessions.get(a.id), undefined);
    assert.equal(
      (await sessions.list("alice", { offset: 0, limit: 20 })).map((s) => s.id),
      [b.id],
    );
    assert.is(await sessions.activeSessionCount(), 1);
    assert.is(await sessions.setTitle(a.id, "gone", tick()), false);
  });

  test("concurrent appends to one session: 45 all kept, then 100 keep the newest 50, none reordered", async () => {
    const sessions = await create({});
    const { id } = await newSession(sessions);
    const first = Array.from({ length: 45 }, (_, i) => message(`a${i}`));
    assert.ok((await Promise.all(first.map((m) => sessions.append(id, m)))).every(Boolean));
    const read = await sessions.get(id);
    assert.equal(new Set(read!.messages.map((m) => m.id)), new Set(first.map((m) => m.id)));

    const burst = Array.from({ length: 100 }, (_, i) => message(`b${i}`));
    await Promise.all(burst.map((m) => sessions.append(id, m)));
    const after = (await sessions.get(id))!.messages;
    assert.is(after.length, 50);
    const order = after.map((m) => Number(m.content.slice(1)));
    assert.ok(
      after.every((m) => m.content.startsWith("b")),
      "the 45 older ones were dropped first",
    );
    assert.equal(
      order,
      [...order].sort((x, y) => x - y),
      "messages keep their append order",
    );
    assert.equal(
      order,
      Array.from({ length: 50 }, (_, i) => 50 + i),
    );
  });

  test.run();
}
