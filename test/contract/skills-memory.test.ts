import { randomBytes } from "node:crypto";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { createMemorySkillStore, createSkillStore } from "../../runtime/skills/store/index.js";
import { createStore } from "../../runtime/store/index.js";
import { rejection } from "../support/errors.js";
import { skill, skillStoreCases } from "./skills.cases.js";

const freshMemory = () => createStore({ env: { MANIFOLD_REDIS_NAMESPACE: `m${randomBytes(4).toString("hex")}` }, log: () => undefined });

skillStoreCases("memory", async () => {
  const skills = createSkillStore({ store: freshMemory(), env: {} });
  if (skills.kind !== "memory") throw new Error("expected the memory adapter");
  return skills;
});

const embedded = suite("skill registry (memory: shared and bounded)");

embedded("every agent of a process reads one registry: the same memory store gives the same skill store", async () => {
  const store = freshMemory();
  const a = createSkillStore({ store, env: {} });
  await a.publish(skill("1.0.0"));
  const b = createSkillStore({ store, env: {} });
  assert.is((await b.get("travel", "packing-advice"))!.version, "1.0.0");
});

embedded("past its byte budget a publish is LIMIT_EXCEEDED naming Redis; nothing is evicted (skills are configuration)", async () => {
  let now = Date.parse("2030-01-01T00:00:00.000Z");
  const skills = createMemorySkillStore({ maxBytes: 40_000, now: () => (now += 1000) });
  const first = await skills.publish(skill("1.0.0", { instructions: "x".repeat(30_000) }));
  assert.is(first.published_at, "2030-01-01T00:00:01.000Z");
  const full = await rejection(skills.publish(skill("2.0.0", { instructions: "y".repeat(30_000) })));
  assert.is(full.code, "LIMIT_EXCEEDED");
  assert.match(full.message, /REDIS_URL/);
  assert.ok((await skills.get("travel", "packing-advice", "1.0.0")) !== undefined);
});

embedded.run();
