/**
 * `uses` entries that limit what the natural-mode planner sees of a component: the schema takes a
 * name or `{name, planner}`, a planner list must name the component's capabilities (MF1322, positioned
 * at the entry, with a suggestion), and the spec carries the limit while the typed client keeps them all.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { loadSources } from "../support/manifests.js";
import { GEOCODING_TOOL, where } from "./load-helpers.js";

const AGENT = "kind: agent\nname: g\ndescription: d\ncapabilities: []\n";
const SCHEDULER_LIKE = `kind: tool
name: clock
description: Timers
capabilities:
  - { name: set_timer, description: Set one }
  - { name: list_timers, description: List them }
  - { name: cancel_timer, description: Cancel one }
`;

const load = (uses: string) =>
  loadSources([
    { file: "m/geo.yaml", text: GEOCODING_TOOL },
    { file: "m/clock.yaml", text: SCHEDULER_LIKE },
    { file: "m/g.yaml", text: `${AGENT}uses: ${uses}\n` },
  ]);

const agentSpec = (uses: string) => {
  const loaded = load(uses);
  assert.equal(loaded.diagnostics, []);
  return loaded.manifests.find((m) => m.name === "g")!.component!.agent!;
};

test("planner: false and a planner list become plannerCapabilities; the names stay in uses", () => {
  const spec = agentSpec("[geocoding-service, { name: clock, planner: [list_timers, set_timer] }]");
  assert.equal(spec.uses, ["clock", "geocoding-service"]);
  assert.equal(spec.plannerCapabilities, { clock: ["list_timers", "set_timer"] });
  assert.equal(agentSpec("[{ name: clock, planner: false }, { name: geocoding-service }]").plannerCapabilities, { clock: [] });
});

test("an entry without a limit (a name, planner: true, no planner) adds nothing to the spec", () => {
  const spec = agentSpec("[{ name: clock, planner: true }, { name: geocoding-service }]");
  assert.equal(spec.uses, ["clock", "geocoding-service"]);
  assert.is("plannerCapabilities" in spec, false);
});

test("MF1322: a planner list naming a capability the component lacks, at the entry, with did-you-mean", () => {
  const { diagnostics } = load("[{ name: clock, planner: [set_timer, cancel_timers] }]");
  assert.equal(where({ diagnostics }), [["MF1322", 5, 44]]);
  assert.is(diagnostics[0]!.message, "`clock` has no capability `cancel_timers` (did you mean `cancel_timer`?)");
});

test("a uses entry in object form is checked like a name (MF1310) and may not repeat one (MF1208)", () => {
  assert.equal(
    where(load("[{ name: clok, planner: false }]")).map(([code]) => code),
    ["MF1310"],
  );
  assert.equal(
    where(load("[clock, { name: clock, planner: false }]")).map(([code]) => code),
    ["MF1208"],
  );
  assert.equal(where(load("[{ name: clock, planner: maybe }]")).map(([code]) => code).length > 0, true);
  assert.equal(where(load("[{ name: clock, hidden: true }]")).map(([code]) => code).length > 0, true);
});

test.run();
