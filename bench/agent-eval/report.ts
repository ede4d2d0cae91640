/** The bench's numbers: per mode totals, the aim, and the printed tables. */
import { MODES, type Mode, type Outcome } from "./harness.js";
import type { Scenario } from "./scenario.js";

export const AIM = { adaptiveSuccess: 0.9, oneShotSuccess: 0.5, adaptiveInvalid: 0 } as const;

export interface ModeSummary {
  readonly mode: Mode;
  readonly runs: number;
  readonly successes: number;
  readonly modelCalls: number;
  readonly toolCalls: number;
  readonly invalid: number;
}

export function summarise(mode: Mode, outcomes: readonly Outcome[]): ModeSummary {
  const mine = outcomes.filter((o) => o.mode === mode);
  const sum = (pick: (o: Outcome) => number): number => mine.reduce((n, o) => n + pick(o), 0);
  return {
    mode,
    runs: mine.length,
    successes: mine.filter((o) => o.success).length,
    modelCalls: sum((o) => o.modelCalls),
    toolCalls: sum((o) => o.toolCalls),
    invalid: sum((o) => o.invalid),
  };
}

const per = (total: number, successes: number): string => (successes === 0 ? "—" : (total / successes).toFixed(2));
const pct = (s: ModeSummary): string => `${((100 * s.successes) / Math.max(1, s.runs)).toFixed(1)} %`;

/** Whether the numbers meet the aim, and the lines that say why not. */
export function missedAims(oneShot: ModeSummary, adaptive: ModeSummary): string[] {
  const missed: string[] = [];
  if (adaptive.successes < AIM.adaptiveSuccess * adaptive.runs) missed.push(`adaptive success ${pct(adaptive)} < 90 %`);
  if (oneShot.successes > AIM.oneShotSuccess * oneShot.runs) missed.push(`one-shot success ${pct(oneShot)} > 50 %`);
  if (adaptive.invalid > AIM.adaptiveInvalid) missed.push(`${adaptive.invalid} invalid dispatches in adaptive mode`);
  return missed;
}

export function printScenarios(scenarios: readonly Scenario[], outcomes: readonly Outcome[], verbose: boolean): void {
  const mark = (o: Outcome | undefined): string =>
    o === undefined ? "?" : `${o.success ? "ok  " : "FAIL"} ${o.modelCalls}m ${o.toolCalls}t${o.invalid > 0 ? ` ${o.invalid}!` : ""}`;
  console.log(`${"scenario".padEnd(40)}${"category".padEnd(20)}${"one-shot".padEnd(18)}adaptive`);
  for (const s of scenarios) {
    const [one, ada] = MODES.map((mode) => outcomes.find((o) => o.scenario === s.name && o.mode === mode));
    console.log(`${s.name.padEnd(40)}${s.category.padEnd(20)}${mark(one).padEnd(18)}${mark(ada)}`);
    for (const o of [one, ada]) {
      if (o === undefined || (o.success && !verbose) || (o.mode === "one-shot" && !verbose)) continue;
      console.log(`    ${o.mode}: ${o.failures.join(" | ") || "ok"}   [asked: ${o.asked.join(", ")}]`);
    }
  }
}

/** Successes by failure category, per mode: where the adaptive loop helps and where it does not. */
export function printCategories(scenarios: readonly Scenario[], outcomes: readonly Outcome[]): void {
  console.log(`\n${"category".padEnd(20)}${"scenarios".padStart(10)}${"one-shot".padStart(10)}${"adaptive".padStart(10)}`);
  for (const category of [...new Set(scenarios.map((s) => s.category))].sort()) {
    const names = new Set(scenarios.filter((s) => s.category === category).map((s) => s.name));
    const won = (mode: Mode): number => outcomes.filter((o) => o.mode === mode && o.success && names.has(o.scenario)).length;
    console.log(`${category.padEnd(20)}${String(names.size).padStart(10)}${String(won("one-shot")).padStart(10)}${String(won("adaptive")).padStart(10)}`);
  }
}

export function printSummary(summaries: readonly ModeSummary[]): void {
  console.log(
    `\n${"mode".padEnd(12)}${"success".padStart(16)}${"model calls/success".padStart(22)}${"tool calls/success".padStart(21)}${"invalid dispatches".padStart(21)}${"model/tool calls per run".padStart(27)}`,
  );
  for (const s of summaries)
    console.log(
      `${s.mode.padEnd(12)}${`${s.successes}/${s.runs} ${pct(s)}`.padStart(16)}${per(s.modelCalls, s.successes).padStart(22)}${per(s.toolCalls, s.successes).padStart(21)}${String(s.invalid).padStart(21)}${`${per(s.modelCalls, s.runs)} / ${per(s.toolCalls, s.runs)}`.padStart(27)}`,
    );
  const [one, ada] = summaries as [ModeSummary, ModeSummary];
  const ratio = (a: number, b: number): string => (b === 0 ? "—" : (a / b).toFixed(2));
  console.log(
    `\nadaptive / one-shot: success ${ratio(ada.successes, one.successes)}×, model calls per success ${ratio(ada.modelCalls / Math.max(1, ada.successes), one.modelCalls / Math.max(1, one.successes))}×, tool calls per success ${ratio(ada.toolCalls / Math.max(1, ada.successes), one.toolCalls / Math.max(1, one.successes))}×`,
  );
}
