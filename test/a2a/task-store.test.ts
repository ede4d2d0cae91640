/** The A2A task store's bounds and ownership, on the SDK's types and an injected clock. */
import { ServerCallContext } from "@a2a-js/sdk/server";
import type { Task } from "@a2a-js/sdk";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createBoundedTaskStore } from "../../runtime/a2a/task-store.js";
import { createManualClock } from "../support/clock.js";

const as = (userName: string): ServerCallContext => new ServerCallContext({ user: { isAuthenticated: true, userName } });
const task = (id: string): Task => ({ id, contextId: "c", status: undefined, artifacts: [], history: [], metadata: undefined });

test("at most maxTasks are kept: the one changed longest ago goes first", async () => {
  const store = createBoundedTaskStore({ maxTasks: 2 });
  for (const id of ["a", "b"]) await store.save(task(id), as("alice"));
  await store.save(task("a"), as("alice")); // a changed again: b is now the oldest
  await store.save(task("c"), as("alice"));
  assert.is(store.size, 2);
  assert.is(await store.load("b", as("alice")), undefined);
  assert.ok(await store.load("a", as("alice")));
  assert.ok(await store.load("c", as("alice")));
});

test("a task is forgotten ttlMs after its last change", async () => {
  const clock = createManualClock();
  const store = createBoundedTaskStore({ ttlMs: 1000, now: () => clock.now() });
  await store.save(task("a"), as("alice"));
  await clock.advance(999);
  assert.ok(await store.load("a", as("alice")));
  await clock.advance(2);
  assert.is(await store.load("a", as("alice")), undefined);
  assert.is(store.size, 0);
});

test("a task is its owner's: another caller neither loads, lists nor overwrites it", async () => {
  const store = createBoundedTaskStore();
  await store.save(task("a"), as("alice"));
  assert.is(await store.load("a", as("bob")), undefined);
  assert.is(
    (
      await store.list(
        {
          tenant: "",
          contextId: "",
          pageSize: undefined,
          pageToken: "",
          historyLength: undefined,
          statusTimestampAfter: undefined,
          includeArtifacts: undefined,
          status: 0,
        } as never,
        as("bob"),
      )
    ).totalSize,
    0,
  );
  await store.save({ ...task("a"), contextId: "bob's" }, as("bob"));
  assert.is((await store.load("a", as("alice")))?.contextId, "c");
});

test.run();
