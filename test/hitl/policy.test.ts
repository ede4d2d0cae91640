/**
 * The HITL policy: the manifest's `hitl:` block, overridden by MANIFOLD_HITL_ENABLED and
 * MANIFOLD_HITL_STEP_SENSITIVE_CAPABILITIES, and the step gate it gives (approved steps: interceptors.test.ts).
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createStepGate, DEFAULT_HITL_EXPIRY_MS, resolveHitlPolicy } from "../../runtime/hitl/policy.js";

const MANIFEST = { planApproval: false, sensitiveCapabilities: ["convert_currency", "bank.transfer"], expiryMs: 120_000, defaultAction: "approve" } as const;
const step = (step_id: string, agent_name: string, capability: string) => ({ step_id, agent_name, metadata: { capability } });

test("a manifest block turns it on with its list, expiry and default action; none leaves it off", () => {
  assert.equal(resolveHitlPolicy(MANIFEST, {}), {
    enabled: true,
    planApproval: false,
    sensitiveCapabilities: ["convert_currency", "bank.transfer"],
    expiryMs: 120_000,
    defaultAction: "approve",
  });
  const off = resolveHitlPolicy(undefined, {});
  assert.is(off.enabled, false);
  assert.is(off.expiryMs, DEFAULT_HITL_EXPIRY_MS);
  assert.is(off.defaultAction, "reject");
  assert.is(createStepGate(off), undefined, "no gate when it is off");
});

test("the environment overrides: MANIFOLD_HITL_ENABLED both ways, the sensitive list replaces the manifest's", () => {
  assert.is(resolveHitlPolicy(MANIFEST, { MANIFOLD_HITL_ENABLED: "false" }).enabled, false);
  const forced = resolveHitlPolicy(undefined, { MANIFOLD_HITL_ENABLED: "true", MANIFOLD_HITL_STEP_SENSITIVE_CAPABILITIES: " pay , ,refund" });
  assert.is(forced.enabled, true);
  assert.equal(forced.sensitiveCapabilities, ["pay", "refund"]);
  assert.equal(resolveHitlPolicy(MANIFEST, { MANIFOLD_HITL_STEP_SENSITIVE_CAPABILITIES: "" }).sensitiveCapabilities, ["convert_currency", "bank.transfer"]);
  assert.throws(() => resolveHitlPolicy(MANIFEST, { MANIFOLD_HITL_ENABLED: "yes please" }), /MANIFOLD_HITL_ENABLED must be true or false/);
});

test("the gate pauses a sensitive step by capability name or component.capability", () => {
  const gate = createStepGate(resolveHitlPolicy(MANIFEST, {}))!;
  assert.equal(gate(step("fx", "currency-service", "convert_currency")), {
    reason: "currency-service.convert_currency is a sensitive capability",
    sensitive_matches: ["convert_currency"],
  });
  assert.equal(gate(step("t", "bank", "transfer"))?.sensitive_matches, ["bank.transfer"]);
  assert.is(gate(step("t", "other-bank", "transfer")), undefined, "component.capability matches that component only");
  assert.is(gate(step("w", "weather-service", "get_current_weather")), undefined);
});

test.run();
