/**
 * Planning context: what an agent feature adds to natural mode's prompts besides the catalog (skills'
 * instructions, a user's remembered facts, a domain's episodes), and what it learns when a run ends.
 * A feature registers a `ContextSource` (`orchestrator.useContext`) and a `SettledListener`
 * (`orchestrator.onSettled`); the orchestrator knows neither skills nor memory.
 *
 * Each source gets its own byte budget and the request's signal; a source that fails or overruns is
 * left out (logged), never the request. Sections are gathered once per request, before the first
 * plan, and kept on the natural run: continuation plans and the synthesis read the same ones.
 */
import type { Identity } from "../context/index.js";
import { cutUtf8, toolOutput, type LlmProvider } from "../llm/index.js";
import type { Logger } from "../telemetry/index.js";
import type { RecordCall } from "./natural/record.js";
import type { Plan, PlanMode } from "./plan.js";

/** Most bytes a source's section may take unless it says otherwise. */
export const DEFAULT_SECTION_BYTES = 4096;
/** Most bytes of one source's evidence kept in the execution record (JSON). */
export const MAX_EVIDENCE_BYTES = 8192;

/**
 * One part of the prompt. `instructions` are followed (skills an operator published); `data` is
 * quoted as data, never obeyed (what users said, what tools returned), like tool output.
 */
export interface ContextSection {
  /** The source's name: `skills`, `user_memory`, `episodic`. */
  readonly source: string;
  /** A heading for the model: "Skills", "What you know about this user". */
  readonly title: string;
  readonly text: string;
  readonly trust: "instructions" | "data";
  /** Also shown to the synthesis (skills shape the answer too). @defaultValue false */
  readonly synthesis?: boolean;
}

/** What a source is asked with: one natural-mode request, before its first plan. */
export interface ContextRequest {
  readonly requestId: string;
  /** The request text the planner reads (a chat turn's includes its earlier turns). */
  readonly request: string;
  /** Who asks, as the inbound check proved it (anonymous when nothing did). */
  readonly identity: Identity;
  /** The chat session or `X-Conversation-ID`, when there is one. */
  readonly conversationId: string | undefined;
  /** Most UTF-8 bytes of `text` kept; a longer section is cut. */
  readonly budgetBytes: number;
  readonly signal: AbortSignal;
  /** The request's budgeted model (calls count against MANIFOLD_MAX_LLM_CALLS); undefined without one. */
  readonly llm: LlmProvider | undefined;
  /** The LLM debug record of the request (when records are on). */
  readonly record: RecordCall | undefined;
}

export interface ContextGathered {
  readonly section?: ContextSection;
  /** What the execution record keeps under `context.<source name>` (skills: which skills and versions shaped the run). */
  readonly evidence?: unknown;
}

export interface ContextSource {
  /** Unique among the agent's sources; the key of its evidence. */
  readonly name: string;
  /** @defaultValue DEFAULT_SECTION_BYTES */
  readonly budgetBytes?: number;
  gather(request: ContextRequest): Promise<ContextGathered | undefined>;
}

/**
 * A source whose part loads on first use: name and budget are known at start (the orchestrator checks and
 * orders its sources then), and each gather waits for `load`. Pass a shared load (loadOnce's `get`, a lazy
 * extension's), so the part loads once; a failed load fails that gather and the next one tries again.
 */
export function contextSourceOnFirstUse(name: string, budgetBytes: number, load: () => Promise<ContextSource>): ContextSource {
  return { name, budgetBytes, gather: async (request) => (await load()).gather(request) };
}

/** A run that ended (completed, failed, paused or clarified), told to every settled listener after its record is saved. */
export interface RunSettled {
  readonly requestId: string | undefined;
  readonly mode: PlanMode;
  readonly workflow?: string;
  /** The request as received: the natural-language text, the inputs, the custom body. */
  readonly request: unknown;
  readonly plan: Plan;
  readonly status: "completed" | "failed" | "interrupted";
  /** Each step's outcome, in plan order. */
  readonly steps: readonly {
    readonly step_id: string;
    readonly component: string;
    readonly capability: string;
    readonly status: string;
    readonly output?: unknown;
  }[];
  readonly synthesis?: unknown;
  readonly identity: Identity;
  readonly conversationId: string | undefined;
  /** The evidence the context sources gave for this run. */
  readonly context: Readonly<Record<string, unknown>>;
}

/** Told after a run settles; not awaited by the request (a slow listener delays nobody), its failure only logged. */
export type SettledListener = (run: RunSettled) => void | Promise<void>;

export function checkContextSources(sources: readonly ContextSource[]): void {
  const seen = new Set<string>();
  for (const source of sources) {
    if (typeof source?.gather !== "function" || !/^[a-z][a-z0-9_]{0,31}$/.test(String(source.name)))
      throw new TypeError("a context source needs a name (lowercase letters, digits, _) and a gather function");
    if (seen.has(source.name)) throw new TypeError(`two context sources are named ${source.name}`);
    seen.add(source.name);
  }
}

export interface Gathered {
  readonly sections: readonly ContextSection[];
  readonly evidence: Readonly<Record<string, unknown>>;
}

function boundedEvidence(evidence: unknown): unknown {
  const text = JSON.stringify(evidence);
  if (text === undefined) return undefined;
  return Buffer.byteLength(text) <= MAX_EVIDENCE_BYTES ? evidence : { truncated: true, bytes: Buffer.byteLength(text) };
}

/** Asks every source at once; each section is cut to its budget, a failing source left out. */
export async function gatherContext(sources: readonly ContextSource[], request: Omit<ContextRequest, "budgetBytes">, log: Logger): Promise<Gathered> {
  if (sources.length === 0) return { sections: [], evidence: {} };
  const answers = await Promise.all(
    sources.map(async (source) => {
      const budgetBytes = source.budgetBytes ?? DEFAULT_SECTION_BYTES;
      try {
        const gathered = await source.gather({ ...request, budgetBytes });
        if (gathered === undefined) return undefined;
        const section = gathered.section === undefined ? undefined : { ...gathered.section, text: cutUtf8(gathered.section.text, budgetBytes).text };
        return { name: source.name, section, evidence: gathered.evidence };
      } catch (error) {
        // Context makes a plan better; its absence never stops the request (the caller's abort does, elsewhere).
        if (!request.signal.aborted) log.warn(`context source ${source.name} failed; planning without it`, { error });
        return undefined;
      }
    }),
  );
  const sections: ContextSection[] = [];
  const evidence: Record<string, unknown> = {};
  for (const answer of answers) {
    if (answer === undefined) continue;
    if (answer.section !== undefined && answer.section.text !== "") sections.push(answer.section);
    if (answer.evidence !== undefined) evidence[answer.name] = boundedEvidence(answer.evidence);
  }
  return { sections, evidence };
}

/**
 * The sections as prompt text, appended to a system prompt: instructions as they are, data quoted
 * as data. `synthesis` keeps only the sections meant for the answer. Empty when there are none.
 */
export function contextPrompt(sections: readonly ContextSection[] | undefined, { synthesis = false }: { readonly synthesis?: boolean } = {}): string {
  if (sections === undefined) return "";
  const shown = synthesis ? sections.filter((s) => s.synthesis === true) : sections;
  if (shown.length === 0) return "";
  return shown.map((s) => `\n\n## ${s.title}\n${s.trust === "instructions" ? s.text : toolOutput(s.text, { source: s.source })}`).join("");
}
