/** The metric label guard: allow-list only, ids never, bounded cardinality. */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { ATTR, createLabelFilter, isIdLabel, LABELS, looksLikeId } from "../../runtime/telemetry/index.js";

const test = suite("metric labels");

test("every kind of id the design names is refused as a label name", () => {
  const ids = [
    "request_id",
    "requestId",
    "manifold.request_id",
    "conversation_id",
    "conversation.id",
    "session_id",
    "sessionId",
    "user_id",
    "user.id",
    "trace_id",
    "trace.id",
    "traceId",
    "span_id",
    "checkpoint_id",
    "plan_id",
    "planId",
    "step_id",
    "step-id",
    "task_id",
    "id",
  ];
  for (const name of ids) assert.ok(isIdLabel(name), name);
  for (const name of LABELS) assert.not.ok(isIdLabel(name), `allowed label ${name} must not look like an id`);
  for (const name of ["capability", "valid", "paid", "grid"]) assert.not.ok(isIdLabel(name), name);
});

test("allowing an id-like label name throws at configuration", () => {
  assert.throws(() => createLabelFilter({ cardinalityLimit: 10, allow: ["tenant", "session_id"] }), /session_id is refused/);
  assert.throws(() => createLabelFilter({ cardinalityLimit: 10, allow: ["userId"] }), /userId is refused/);
});

test("names outside the allow-list, id names and id-shaped values are dropped, each reported once", () => {
  const drops: string[] = [];
  const filter = createLabelFilter({ cardinalityLimit: 100, allow: ["tenant"], onDrop: (metric, label, why) => drops.push(`${metric}:${label}:${why}`) });
  const labels = {
    [ATTR.COMPONENT]: "weather",
    [ATTR.CAPABILITY]: "get_current_weather",
    [ATTR.HTTP_STATUS]: 200,
    tenant: "acme",
    request_id: "r-1",
    "manifold.request_id": "r-2",
    colour: "blue",
    [ATTR.TARGET]: "7d444840-9dc0-11d1-b245-5ffdce74fad2",
    [ATTR.OUTCOME]: undefined,
  };
  assert.equal(filter("m", labels), { [ATTR.COMPONENT]: "weather", [ATTR.CAPABILITY]: "get_current_weather", [ATTR.HTTP_STATUS]: 200, tenant: "acme" });
  filter("m", labels);
  assert.equal(drops, [
    "m:request_id:not an allowed label",
    "m:manifold.request_id:not an allowed label",
    "m:colour:not an allowed label",
    `m:${ATTR.TARGET}:its value looks like an id`,
  ]);
  for (const value of [
    "7d444840-9dc0-11d1-b245-5ffdce74fad2",
    "4bf92f3577b34da6a3ce929d0e0e4736",
    "sch-1a2b3c4d",
    "cp-9f8e7d6c",
    "custom-1700000000123456789",
    "workflow-1795363775682937109",
    "task-7f3a",
    1_700_000_000,
  ]) {
    assert.ok(looksLikeId(value), String(value));
  }
  for (const value of [
    "weather-service",
    "task-agent",
    "plan-reviewer",
    "step-runner",
    "get_current_weather",
    "POST",
    200,
    503,
    true,
    "/api/capabilities/plan_trip",
  ])
    assert.not.ok(looksLikeId(value), String(value));
});

test("past the profile's cardinality limit a metric records only the overflow label", () => {
  const drops: string[] = [];
  const filter = createLabelFilter({ cardinalityLimit: 2, onDrop: (_m, label) => drops.push(label) });
  assert.equal(filter("m", { [ATTR.CAPABILITY]: "a" }), { [ATTR.CAPABILITY]: "a" });
  assert.equal(filter("m", { [ATTR.CAPABILITY]: "b" }), { [ATTR.CAPABILITY]: "b" });
  assert.equal(filter("m", { [ATTR.CAPABILITY]: "c" }), { [ATTR.OVERFLOW]: true });
  assert.equal(filter("m", { [ATTR.CAPABILITY]: "a" }), { [ATTR.CAPABILITY]: "a" }, "known sets still record");
  assert.equal(filter("other", { [ATTR.CAPABILITY]: "c" }), { [ATTR.CAPABILITY]: "c" }, "the limit is per metric");
  assert.equal(drops, ["*"]);
});

test.run();
