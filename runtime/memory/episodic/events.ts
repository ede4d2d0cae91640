/**
 * A settled run as an episode's events and entities, bounded: the request, each step (its
 * capability, status and a short rendering of its output) and the answer, each cut to
 * MAX_EVENT_TEXT_BYTES with any registered secret replaced; entities from the steps' string
 * parameters (`destination: "Lisbon"` → `destination:lisbon`), at most MAX_ENTITIES, never one that
 * looks like a credential (entities are kept in the store, shown in prompts and span attributes).
 */
import { redactSecrets } from "../../context/index.js";
import { cutUtf8 } from "../../llm/index.js";
import type { RunSettled } from "../../orchestration/served.js";
import { looksSecret } from "../user/index.js";
import { MAX_ENTITIES, MAX_ENTITY_BYTES, MAX_EVENT_TEXT_BYTES, MAX_EVENTS } from "./store/index.js";
import type { EpisodeEvent } from "./store/index.js";

/** Parameter values longer than this are content (a message, a query), not an entity's name. */
const MAX_ENTITY_VALUE_CHARS = 64;
const ENTITY_KEY = /^[A-Za-z][A-Za-z0-9_]{0,31}$/;

/** Text for an event: a string as is, anything else as JSON; secrets replaced, cut to the bound. */
export function eventText(value: unknown): string {
  let text: string;
  try {
    text = typeof value === "string" ? value : (JSON.stringify(value) ?? "");
  } catch {
    text = "[unserialisable]";
  }
  // A cut never needs more than the bound's worth of characters to look at.
  return cutUtf8(redactSecrets(text.slice(0, MAX_EVENT_TEXT_BYTES * 4)), MAX_EVENT_TEXT_BYTES).text;
}

/** The words of an entity value as memory keeps them: lowercase, single spaces. */
export function normaliseValue(text: string): string {
  return text.toLowerCase().replace(/\s+/g, " ").trim();
}

function requestText(run: RunSettled): unknown {
  if (run.mode === "natural") return run.request;
  return { workflow: run.workflow ?? run.plan.plan_id, inputs: run.request };
}

function answerText(synthesis: unknown): unknown {
  if (synthesis !== null && typeof synthesis === "object" && typeof (synthesis as { response?: unknown }).response === "string")
    return (synthesis as { response: string }).response;
  return synthesis;
}

export function episodeEvents(run: RunSettled): EpisodeEvent[] {
  const events: EpisodeEvent[] = [{ kind: "request", text: eventText(requestText(run)) }];
  const hasAnswer = run.synthesis !== undefined;
  const room = MAX_EVENTS - 1 - (hasAnswer ? 1 : 0);
  for (const step of run.steps.slice(0, room)) {
    events.push({
      kind: "step",
      capability: cutUtf8(`${step.component}.${step.capability}`, 256).text,
      status: cutUtf8(step.status, 32).text,
      text: eventText(step.output ?? ""),
    });
  }
  if (hasAnswer) events.push({ kind: "answer", text: eventText(answerText(run.synthesis)) });
  return events;
}

/**
 * The entities a run was about: each step's string parameters that read as names (short, one line,
 * not a template or a URL), as `<parameter>:<value>`, in plan order, each once; and how many each
 * step named (its `memory.entity_extraction.completed` at the record hook).
 */
export function episodeEntities(run: RunSettled): { entities: string[]; steps: { step_id: string; found: number }[] } {
  const found = new Set<string>();
  const steps: { step_id: string; found: number }[] = [];
  for (const step of run.plan.steps.slice(0, MAX_EVENTS)) {
    let named = 0;
    for (const [key, value] of Object.entries(step.metadata.parameters ?? {})) {
      if (typeof value !== "string" || !ENTITY_KEY.test(key)) continue;
      const normal = normaliseValue(value);
      if (normal === "" || normal.length > MAX_ENTITY_VALUE_CHARS || /\{\{|\$\{|:\/\/|[\r\n]/.test(value)) continue;
      // A token passed to a tool is no entity: the key or the value says so, or it is a registered secret.
      if (looksSecret(key.toLowerCase(), value) || redactSecrets(value) !== value) continue;
      const entity = `${key.toLowerCase()}:${normal}`;
      if (Buffer.byteLength(entity) > MAX_ENTITY_BYTES) continue;
      named += 1;
      if (found.size < MAX_ENTITIES) found.add(entity);
    }
    steps.push({ step_id: step.step_id, found: named });
  }
  return { entities: [...found], steps };
}
