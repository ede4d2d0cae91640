/**
 * The selection stage before a plan call: under the threshold the planner is shown the whole visible
 * catalog; over it, the capabilities tiered selection chose (selection.ts), with full schemas, plus
 * what they depend on. The catalog carries neither an agent's `uses` nor its workflows' steps, and a
 * workflow capability runs its steps inside its own agent, so the dependencies shown are the
 * capabilities of the earlier phases' steps a continuation may reference (their outputs are what its
 * templates read). A continuation reuses the request's selection (`run.selection`); a problem that
 * asks for a new one (a continuation naming a capability outside it) selects again, once.
 */
import { promptBytes, type LlmMessage, type LlmProvider } from "../../llm/index.js";
import type { CatalogComponent } from "../catalog.js";
import type { Plan } from "../plan.js";
import { createCatalogIndexer, type CatalogIndex, type CatalogIndexer } from "./catalog-index.js";
import type { RecordCall } from "./record.js";
import { currentNaturalRun } from "./run-context.js";
import { MAX_SELECTED } from "./selection-prompts.js";
import { fitSelection, selectCapabilities, selectedCatalog } from "./selection.js";

export interface SelectionStageOptions {
  readonly provider: LlmProvider;
  readonly temperature: number;
  /** Past this many visible capabilities, the plan call is preceded by a selection. */
  readonly threshold: number;
  /** Most bytes of any prompt (the selection's and the plan's). */
  readonly budgetBytes: number;
}

export interface StageRequest {
  readonly request: string;
  /** The catalog the planner may see (internal capabilities left out). */
  readonly visible: readonly CatalogComponent[];
  /** The plan call's messages over a catalog (the whole one, or the selection). */
  readonly build: (catalog: readonly CatalogComponent[]) => LlmMessage[];
  /** A continuation's plan so far: its steps' capabilities are shown with the selection. */
  readonly base?: Plan;
  /** Reuse the request's selection when there is one (continuations). */
  readonly reuse?: boolean;
  readonly signal?: AbortSignal;
  readonly record?: RecordCall;
}

export interface Staged {
  /** The plan call's first messages (system, user). */
  readonly messages: LlmMessage[];
  /** The `component.capability` names shown; undefined: the whole catalog. */
  readonly shown?: readonly string[];
  /** An earlier phase's selection was reused. */
  readonly reused: boolean;
  /** Selects again, with the capabilities the plan wanted outside the selection: new first messages and names shown. */
  readonly again?: (wanted: readonly string[]) => Promise<{ readonly messages: LlmMessage[]; readonly shown: readonly string[] }>;
}

export interface SelectionStage {
  (asked: StageRequest): Promise<Staged>;
  readonly indexer: CatalogIndexer;
}

const unique = (names: readonly string[]): string[] => [...new Set(names)];

const counts = new WeakMap<readonly CatalogComponent[], number>();

/** How many capabilities a catalog has (kept with a frozen one: it cannot change). */
function capabilityCount(catalog: readonly CatalogComponent[]): number {
  const kept = counts.get(catalog);
  if (kept !== undefined) return kept;
  let count = 0;
  for (const component of catalog) count += component.capabilities.length;
  if (Object.isFrozen(catalog)) counts.set(catalog, count);
  return count;
}

const visibleViews = new WeakMap<readonly CatalogComponent[], readonly CatalogComponent[]>();

/**
 * The catalog the planner may see: internal capabilities left out. Over a frozen catalog
 * (readCatalog's, kept while nothing changed) the same frozen view every time, whose components are
 * the catalog's own where nothing was internal, so the stage's identity caches (the index, the
 * selected catalog's lookup) hold and a request builds no copy of a large catalog; over a plain one
 * a new view each time (it may change in place).
 */
export function visibleCatalog(catalog: readonly CatalogComponent[]): readonly CatalogComponent[] {
  const kept = visibleViews.get(catalog);
  if (kept !== undefined) return kept;
  const view = catalog.map((component) =>
    component.capabilities.some((wire) => wire.internal)
      ? Object.freeze({ ...component, capabilities: Object.freeze(component.capabilities.filter((wire) => !wire.internal)) })
      : component,
  );
  if (!Object.isFrozen(catalog)) return view;
  const frozen = Object.freeze(view);
  visibleViews.set(catalog, frozen);
  return frozen;
}

/**
 * Room a plan prompt keeps for the exchange a regeneration appends: the plan quoted back (at most
 * QUOTED_PLAN_BYTES) and its problems. A prompt fitted to the whole budget would be refused the
 * moment one problem went back.
 */
export const REGENERATION_RESERVE_BYTES = 12 * 1024;

export function createSelectionStage({ provider, temperature, threshold, budgetBytes }: SelectionStageOptions): SelectionStage {
  const indexer = createCatalogIndexer();
  const planBudget = Math.max(Math.floor(budgetBytes / 2), budgetBytes - REGENERATION_RESERVE_BYTES);
  const stage = async (asked: StageRequest): Promise<Staged> => {
    const { request, visible, build, base, reuse = false, signal, record } = asked;
    // Under the threshold the whole catalog is shown, if it fits: a few verbose capabilities, or a small
    // context, make selection worth its call below the threshold too (a prompt is reduced, never refused).
    if (capabilityCount(visible) <= threshold) {
      const whole = build(visible);
      if (promptBytes(whole) <= planBudget) return { messages: whole, reused: false };
    }
    const index = indexer(visible);
    const dependencies = dependenciesOf(base, index);
    const run = currentNaturalRun();
    const choose = async (context?: string): Promise<readonly string[]> => {
      const options = { ...(signal && { signal }), ...(record && { record }), ...(context === undefined ? {} : { context }) };
      return (await selectCapabilities({ provider, index, request, budgetBytes, temperature, ...options })).names;
    };
    const show = (chosen: readonly string[]): { messages: LlmMessage[]; shown: readonly string[] } => {
      const shownOf = (names: readonly string[]): string[] => unique([...names, ...dependencies]);
      const fitted = fitSelection(chosen, (names) => build(selectedCatalog(visible, index, shownOf(names))), planBudget);
      if (run !== undefined) run.selection = fitted.names;
      return { messages: fitted.messages, shown: shownOf(fitted.names) };
    };
    const previous = reuse ? run?.selection : undefined;
    const first = show(previous ?? (await choose()));
    return {
      ...first,
      reused: previous !== undefined,
      again: async (wanted) => {
        const known = wanted.filter((key) => index.byKey.has(key));
        const context = `The plan of a later phase needed capabilities outside the earlier selection: ${known.join(", ")}. Select everything the rest of the request needs.`;
        // What the plan asked for stays: it exists, and the model named it while planning.
        return show(unique([...known, ...(await choose(context))]).slice(0, MAX_SELECTED));
      },
    };
  };
  return Object.assign(stage, { indexer });
}

/** The capabilities of the earlier phases' completed steps that are still in the catalog. */
function dependenciesOf(base: Plan | undefined, index: CatalogIndex): string[] {
  if (base === undefined) return [];
  return unique(base.steps.map((step) => `${step.agent_name}.${step.metadata.capability}`).filter((key) => index.byKey.has(key)));
}
