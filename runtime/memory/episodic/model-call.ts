/**
 * One text call of episodic memory (event summarisation, activity compaction, reflection): the
 * request and response events on the span the caller gives, the LLM debug record when records are
 * on. Event attributes are sizes, tokens and timings, never the prompt or the answer (they hold what
 * the run's tools returned).
 */
import type { LlmCompletion, LlmMessage, LlmPhase, LlmProvider } from "../../llm/index.js";
import type { RecordCall } from "../../orchestration/served.js";
import type { SpanAttributes } from "../../telemetry/index.js";

/** Where episodic memory's events go: the request's span (reads), a `memory.*` span (recording, passes). */
export type Emit = (name: string, attributes: SpanAttributes) => void;

export interface TextCall {
  readonly llm: LlmProvider;
  readonly phase: LlmPhase;
  readonly messages: readonly LlmMessage[];
  readonly maxTokens: number;
  /** The answer is cut here (and marked `truncated`). */
  readonly maxOutputBytes: number;
  readonly signal?: AbortSignal;
  readonly record?: RecordCall | undefined;
  readonly emit: Emit;
  /** The request and response event names. */
  readonly events: { readonly request: string; readonly response: string };
  /** Added to both events (request_id, pass_id). */
  readonly attributes?: SpanAttributes;
}

const promptLength = (messages: readonly LlmMessage[]): number => messages.reduce((n, m) => n + m.content.length, 0);

export async function textCall({
  llm,
  phase,
  messages,
  maxTokens,
  maxOutputBytes,
  signal,
  record,
  emit,
  events,
  attributes = {},
}: TextCall): Promise<LlmCompletion> {
  const started = Date.now();
  emit(events.request, { ...attributes, prompt_length: promptLength(messages), max_tokens: maxTokens, model: llm.model });
  try {
    const completion = await llm.complete({ phase, messages, maxTokens, maxOutputBytes, temperature: 0, ...(signal && { signal }) });
    emit(events.response, {
      ...attributes,
      response_length: completion.text.length,
      prompt_tokens: completion.usage.prompt_tokens,
      completion_tokens: completion.usage.completion_tokens,
      total_tokens: completion.usage.total_tokens,
      duration_ms: completion.duration_ms,
      finish_reason: completion.finish_reason,
    });
    record?.({ type: phase, messages, attempt: 1, started, model: llm.model, completion });
    return completion;
  } catch (error) {
    record?.({ type: phase, messages, attempt: 1, started, model: llm.model, error });
    throw error;
  }
}

/** `a:b` → entity type and id, for span attributes. */
export function entityParts(entity: string): { entity_type: string; entity_id: string } {
  const at = entity.indexOf(":");
  return at < 0 ? { entity_type: "entity", entity_id: entity } : { entity_type: entity.slice(0, at), entity_id: entity.slice(at + 1) };
}

/** The digest and knowledge are read by every user of the domain: what one user said about themselves stays out. */
export const PRIVACY_RULE =
  "Leave out who asked and anything a user said about themselves (names, where they live, plans, contact details): what you write is shown to every user of the agent.";
