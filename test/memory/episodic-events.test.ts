/**
 * A settled run's entities: its steps' string parameters that read as names become entities
 * (`destination: "Lisbon"` → `destination:lisbon`); a credential passed to a tool never does (the
 * entities are stored, shown in planning prompts and named in reflection's span attributes).
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { ANONYMOUS, registerSecret } from "../../runtime/context/index.js";
import { episodeEntities } from "../../runtime/memory/episodic/events.js";
import type { RunSettled } from "../../runtime/orchestration/index.js";

function run(parameters: Record<string, unknown>): RunSettled {
  return {
    requestId: "req-1",
    mode: "natural",
    request: "Plan a trip",
    plan: { plan_id: "p1", steps: [{ step_id: "s1", metadata: { parameters } }] },
    status: "completed",
    steps: [],
    identity: ANONYMOUS,
    conversationId: undefined,
    context: {},
  } as unknown as RunSettled;
}

test("names become entities; credentials, by key, shape or registration, do not", () => {
  registerSecret("hunter2-but-registered");
  const { entities, steps } = episodeEntities(
    run({
      destination: "Lisbon",
      traveller: "Ana Lima",
      api_token: "plain-looking",
      wifi_password: "sunny",
      note: "sk-abcdefghijklmnopqrstuv",
      code: "hunter2-but-registered",
      nights: 3,
    }),
  );
  assert.equal(entities, ["destination:lisbon", "traveller:ana lima"]);
  assert.equal(steps, [{ step_id: "s1", found: 2 }]);
});

test.run();
