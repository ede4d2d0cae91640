/**
 * `scheduled: {input}` declares what a schedule's input carries to the agent: a run whose input fits
 * reaches the handler (typed by the declaration), one that does not is 400 INVALID_INPUT with a
 * pointer into `/input`, and the handler is not called (the executor dead-letters it as rejected).
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { defineAgent } from "../../runtime/codegen/v1/index.js";
import type { ScheduledHandler } from "../../runtime/scheduling/index.js";
import { agent as agentManifest, agentSpec } from "../support/specs.js";

const SPEC = agentSpec(
  agentManifest("brief-agent", {
    description: "Briefs on schedule",
    capabilities: {},
    more: { scheduled: { input: { required: [{ name: "destination", type: "string" }], optional: [{ name: "days", type: "integer" }] } } },
  }),
);
const BriefAgent = defineAgent<{}, {}>(SPEC, {});

const seen: unknown[] = [];
const scheduled: ScheduledHandler<{ destination: string; days?: number }> = ({ input }) => {
  seen.push(input);
  return `${input.destination} for ${input.days ?? 3} days`;
};
const agent = await BriefAgent.serve({ port: 0, registry: false, handleSignals: false, log: () => {}, handlers: {}, scheduled });
test.after(() => agent.close());

async function post(input: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${agent.url}/api/v1/scheduled`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ schedule_id: "sch-1", task_id: "sch-1:1767225600", instruction: "brief", input }),
  });
  return { status: response.status, body: await response.json() };
}

test("the spec carries the declared input", () => {
  assert.equal(SPEC.agent?.scheduledInput, {
    required: [{ name: "destination", type: "string" }],
    optional: [{ name: "days", type: "integer" }],
  });
});

test("an input that fits reaches the typed handler", async () => {
  const { status, body } = await post({ destination: "Kyoto", days: 2 });
  assert.is(status, 200, JSON.stringify(body));
  assert.is(body.data.response, "Kyoto for 2 days");
});

test("an input that does not fit is 400 INVALID_INPUT pointing into /input; the handler is not called", async () => {
  const before = seen.length;
  for (const input of [{}, { destination: 7 }, { destination: "Kyoto", extra: true }]) {
    const { status, body } = await post(input);
    assert.is(status, 400, JSON.stringify(input));
    assert.is(body.error.code, "INVALID_INPUT");
    assert.ok(
      body.error.details.some((d: { pointer: string }) => d.pointer.startsWith("/input")),
      JSON.stringify(body.error.details),
    );
  }
  assert.is(seen.length, before);
});

test.run();
