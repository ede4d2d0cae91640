/**
 * The scenarios adaptive mode is known to fail, and why. test/bench/agent-eval.test.ts holds every
 * scenario's adaptive outcome to this list, so a regression in any scenario (or an unexplained fix)
 * fails CI; bench/README says the same in prose.
 */
export const KNOWN_ADAPTIVE_FAILURES: Readonly<Record<string, string>> = {
  "units-enum-stubborn":
    "the model repeats a value outside the enum through every regeneration the plan check allows: PLAN_INVALID before any dispatch, and recovery starts after a dispatch",
  "thermostat-correction-off-enum":
    "the analysis' corrected parameters fail the input schema, so they are never sent; one semantic retry per step, and the remediation phase gets nothing from the model",
};
