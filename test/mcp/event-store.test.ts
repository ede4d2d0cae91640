/**
 * The MCP event store's bounds (issue 34): what a client can make a component keep for resumption is
 * capped per stream, in total bytes and in idle time on a clock the test moves; a stream answers only
 * its own session.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createMcpEventStore } from "../../runtime/mcp/event-store.js";
import { createManualClock } from "../support/clock.js";

const note = (n: number) => ({ jsonrpc: "2.0" as const, method: "notifications/progress", params: { progress: n, progressToken: "t" } });

test("a stream keeps its last maxEventsPerStream events: a resume from a dropped one gets those kept", () => {
  const store = createMcpEventStore({ maxEventsPerStream: 3 });
  const ids = [1, 2, 3, 4, 5].map((n) => store.store("s1.1", note(n)).id);
  assert.equal(
    store.after(ids[0]!).map((event) => (JSON.parse(event.data) as { params: { progress: number } }).params.progress),
    [3, 4, 5],
  );
  assert.equal(store.after(ids[3]!).length, 1);
});

test("a stream answers only its own session, and a session's streams go when it closes", () => {
  const store = createMcpEventStore();
  const { id } = store.store("s1.1", note(1));
  assert.is(store.streamOf(id, "s1"), "s1.1");
  assert.is(store.streamOf(id, "s2"), undefined);
  assert.is(store.streamOf("s1.1:x", "s1"), undefined);
  store.forget("s1");
  assert.is(store.streamOf(id, "s1"), undefined);
  assert.is(store.bytes, 0);
});

test("past maxBytes the oldest events of the least recently used stream go first", () => {
  const store = createMcpEventStore({ maxBytes: 400 });
  const old = store.store("s1.1", note(1)).id;
  for (let i = 0; i < 20; i += 1) store.store("s2.1", note(i));
  assert.ok(store.bytes <= 400);
  assert.is(store.streamOf(old, "s1"), undefined);
});

test("a stream idle for idleTtlMs is forgotten; one used meanwhile is kept", async () => {
  const clock = createManualClock();
  const store = createMcpEventStore({ idleTtlMs: 1000, clock });
  const idle = store.store("s1.1", note(1)).id;
  const used = store.store("s2.1", note(1)).id;
  await clock.advance(600);
  store.store("s2.1", note(2));
  await clock.advance(600);
  assert.is(store.streamOf(idle, "s1"), undefined);
  assert.is(store.streamOf(used, "s2"), "s2.1");
  store.clear();
  assert.is(clock.pending(), 0);
});

test.run();
