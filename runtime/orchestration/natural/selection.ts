/**
 * Tiered selection: over a catalog larger than MANIFOLD_TIERED_SELECTION_THRESHOLD capabilities,
 * planning first asks the model which capabilities the request needs, over the compact index
 * (catalog-index.ts), and the plan call then sees the full schemas of those only. The selected names
 * are checked against the live catalog: a near miss is corrected (did-you-mean, the same `closest`
 * the plan check uses), anything else dropped, each reported (`llm.hallucination_detected`). A
 * selection that names nothing usable is asked once more over a wider index
 * (`llm.tiered_selection.empty_recovered`); still nothing, the plan is made over the capabilities most
 * relevant to the request by the index's ranking, never over the whole catalog.
 */
import { promptBytes, type LlmCompletion, type LlmMessage, type LlmProvider } from "../../llm/index.js";
import { closest } from "../../manifest/dataflow/index.js";
import { getTelemetry } from "../../telemetry/index.js";
import type { CatalogComponent } from "../catalog.js";
import type { PlanProblem } from "./check-plan.js";
import { fitIndex, rankByRelevance, type CatalogIndex } from "./catalog-index.js";
import type { RecordCall } from "./record.js";
import { llmEventScope } from "./run-context.js";
import { MAX_SELECTED, parseSelection, SELECTION_JSON_SCHEMA, selectionMessages, type SelectedName } from "./selection-prompts.js";

/** Capabilities a plan is made over when two selections named nothing usable: the most relevant by the index's ranking. */
export const FALLBACK_SELECTED = 8;
/** A selection answer is a short list: room for MAX_SELECTED names, not for a runaway answer. */
const SELECTION_MAX_TOKENS = 1024;
const SELECTION_MAX_BYTES = 16 * 1024;
/** Names of one answer looked at (each unknown one costs a did-you-mean over the component names). */
const MAX_NAMES_READ = 64;

export interface SelectionRequest {
  readonly provider: LlmProvider;
  readonly index: CatalogIndex;
  readonly request: string;
  /** Most bytes of the selection prompt (promptBudgetBytes): the index is cut to fit. */
  readonly budgetBytes: number;
  readonly temperature: number;
  readonly signal?: AbortSignal;
  readonly record?: RecordCall;
  /** A later phase's reason to select again. */
  readonly context?: string;
}

export interface Selection {
  /** `component.capability`, each in the catalog, at most MAX_SELECTED, the model's order. */
  readonly names: readonly string[];
  /** The model's first answer, its retry over the wider index, or the relevance fallback. */
  readonly source: "selected" | "recovered" | "relevance";
  /** Names the model gave that are not in the catalog, and what each became (undefined: dropped). */
  readonly corrections: readonly { readonly given: string; readonly corrected?: string }[];
}

/** Asks for a selection (and once more when it names nothing usable); never an empty one. */
export async function selectCapabilities(asked: SelectionRequest): Promise<Selection> {
  const first = await ask(asked, 1, false);
  if (first.names.length > 0) return { names: first.names, source: "selected", corrections: first.corrections };
  const telemetry = getTelemetry();
  const scope = llmEventScope();
  if (scope.phase_number === 1) telemetry.event("llm.tiered_selection.semantic_empty_phase1", { ...scope, attempt: 1 });
  const second = await ask(asked, 2, true);
  const corrections = [...first.corrections, ...second.corrections];
  if (second.names.length > 0) {
    telemetry.event("llm.tiered_selection.empty_recovered", { ...llmEventScope(), prior_count: first.given, attempt: 2 });
    return { names: second.names, source: "recovered", corrections };
  }
  const names = rankByRelevance(asked.index, asked.request, FALLBACK_SELECTED).map((e) => e.key);
  return { names, source: "relevance", corrections };
}

interface Answered {
  readonly names: string[];
  /** How many names the answer gave (the `prior_count` of a recovery). */
  readonly given: number;
  readonly corrections: Selection["corrections"];
}

async function ask(
  { provider, index, request, budgetBytes, temperature, signal, record, context }: SelectionRequest,
  attempt: number,
  wide: boolean,
): Promise<Answered> {
  const total = index.entries.length;
  // The index gets what the rest of the prompt leaves (with room for the line saying it was cut).
  const fixed = promptBytes(selectionMessages({ request, index: "", shown: 0, total, wide, ...(context === undefined ? {} : { context }) }));
  const fitted = fitIndex(index, request, Math.max(0, budgetBytes - fixed - 200), { wide });
  const messages: LlmMessage[] = selectionMessages({
    request,
    index: fitted.text,
    shown: fitted.shown,
    total,
    wide,
    ...(context === undefined ? {} : { context }),
  });
  const started = Date.now();
  let completion: LlmCompletion;
  try {
    completion = await provider.complete({
      phase: "tiered_selection",
      messages,
      json: { name: "capability_selection", schema: SELECTION_JSON_SCHEMA },
      temperature,
      maxTokens: SELECTION_MAX_TOKENS,
      maxOutputBytes: SELECTION_MAX_BYTES,
      ...(signal && { signal }),
    });
  } catch (error) {
    record?.({ type: "tiered_selection", messages, attempt, started, model: provider.model, error });
    throw error;
  }
  record?.({ type: "tiered_selection", messages, attempt, started, model: provider.model, completion });
  // An answer that is not a selection is an empty one: the retry over the wider index follows.
  const given = (completion.truncated === true ? undefined : parseSelection(completion.text)) ?? [];
  return { ...checkNames(index, given.slice(0, MAX_NAMES_READ), attempt), given: given.length };
}

/** The names against the catalog: known ones kept, near misses corrected, the rest dropped; each miss reported. */
function checkNames(index: CatalogIndex, given: readonly SelectedName[], attempt: number): Omit<Answered, "given"> {
  const names: string[] = [];
  const corrections: { given: string; corrected?: string }[] = [];
  for (const { agent_name, capability } of given) {
    const key = `${agent_name}.${capability}`;
    const found = index.byKey.has(key) ? key : nearMiss(index, agent_name, capability);
    if (found !== key) {
      corrections.push({ given: key, ...(found === undefined ? {} : { corrected: found }) });
      getTelemetry().event("llm.hallucination_detected", {
        ...llmEventScope(),
        hallucinated_agent: key.slice(0, 100),
        allowed_agent_count: index.capabilities.size,
        hall_retry: 0,
        max_hall_retries: 0,
        attempt,
        ...(found === undefined ? {} : { corrected_to: found.slice(0, 100) }),
      });
    }
    if (found !== undefined && !names.includes(found) && names.length < MAX_SELECTED) names.push(found);
  }
  return { names, corrections };
}

/** The catalog's `component.capability` closest to a name it does not have, or undefined. */
function nearMiss(index: CatalogIndex, agent: string, capability: string): string | undefined {
  const component = index.capabilities.has(agent) ? agent : closest(agent, [...index.capabilities.keys()]);
  if (component === undefined) return undefined;
  const names = index.capabilities.get(component)!;
  const match = names.includes(capability) ? capability : closest(capability, names);
  return match === undefined ? undefined : `${component}.${match}`;
}

/** Per frozen visible catalog (readCatalog's, kept while nothing changed), its components by name with their position. */
const componentsByName = new WeakMap<readonly CatalogComponent[], ReadonlyMap<string, { readonly component: CatalogComponent; readonly at: number }>>();

function componentsOf(visible: readonly CatalogComponent[]): ReadonlyMap<string, { readonly component: CatalogComponent; readonly at: number }> {
  let found = componentsByName.get(visible);
  if (found === undefined) {
    found = new Map(visible.map((component, at) => [component.name, { component, at }]));
    componentsByName.set(visible, found);
  }
  return found;
}

/**
 * The visible catalog cut to the `component.capability` names given (components without one left
 * out), in catalog order. The names are resolved through the index, and the components through a
 * map kept with a frozen catalog, so a request builds nothing per capability (or component) of the
 * catalog; a catalog that may still change is read through once.
 */
export function selectedCatalog(visible: readonly CatalogComponent[], index: CatalogIndex, names: readonly string[]): CatalogComponent[] {
  const wanted = new Map<string, Set<string>>();
  for (const key of names) {
    const entry = index.byKey.get(key);
    if (entry === undefined) continue;
    const capabilities = wanted.get(entry.component);
    if (capabilities === undefined) wanted.set(entry.component, new Set([entry.capability]));
    else capabilities.add(entry.capability);
  }
  const out: CatalogComponent[] = [];
  const add = (component: CatalogComponent, chosen: ReadonlySet<string>): void => {
    const capabilities = component.capabilities.filter((wire) => chosen.has(wire.name));
    if (capabilities.length > 0) out.push({ ...component, capabilities });
  };
  if (Object.isFrozen(visible)) {
    const byName = componentsOf(visible);
    const found = [...wanted.keys()].flatMap((name) => byName.get(name) ?? []).sort((a, b) => a.at - b.at);
    for (const { component } of found) add(component, wanted.get(component.name)!);
    return out;
  }
  for (const component of visible) {
    const chosen = wanted.get(component.name);
    if (chosen !== undefined) add(component, chosen);
  }
  return out;
}

/**
 * The plan prompt over the selection, cut to fit the budget: capabilities are dropped from the end
 * of the selection (the model lists the most important first) until the prompt fits or one is left.
 */
export function fitSelection(
  names: readonly string[],
  build: (names: readonly string[]) => LlmMessage[],
  budgetBytes: number,
): { readonly names: readonly string[]; readonly messages: LlmMessage[] } {
  let kept = names;
  let messages = build(kept);
  while (kept.length > 1 && promptBytes(messages) > budgetBytes) {
    kept = kept.slice(0, -1);
    messages = build(kept);
  }
  return { names: kept, messages };
}

/** Most names a problem lists as the choice. */
const CHOICES_LISTED = 24;

/**
 * Steps that call a capability the catalog has (so not a hallucination) that the planner was not
 * shown: each a problem naming the choice. `catalog` is the full one the plan is checked against.
 */
export function outsideSelection(
  value: unknown,
  selection: readonly string[],
  catalog: readonly CatalogComponent[],
): (PlanProblem & { readonly key: string })[] {
  const steps = typeof value === "object" && value !== null ? (value as { steps?: unknown }).steps : undefined;
  if (!Array.isArray(steps)) return [];
  const shown = new Set(selection);
  const problems: (PlanProblem & { key: string })[] = [];
  steps.forEach((step: unknown, i) => {
    if (typeof step !== "object" || step === null) return;
    const name = (step as { agent_name?: unknown }).agent_name;
    const capability = (step as { metadata?: { capability?: unknown } }).metadata?.capability;
    if (typeof name !== "string" || typeof capability !== "string" || shown.has(`${name}.${capability}`)) return;
    const exists = catalog.some((c) => c.name === name && c.capabilities.some((wire) => wire.name === capability && !wire.internal));
    if (!exists) return;
    const choices = selection.slice(0, CHOICES_LISTED).join(", ") + (selection.length > CHOICES_LISTED ? ", …" : "");
    problems.push({
      key: `${name}.${capability}`,
      pointer: `/steps/${i}/metadata/capability`,
      message: `${name}.${capability} is not among the selected capabilities; choose from ${choices}`,
    });
  });
  return problems;
}
