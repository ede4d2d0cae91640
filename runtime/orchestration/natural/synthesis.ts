/**
 * The language-model synthesiser: a run's results (trimmed to a byte budget) and the original
 * request in, prose out, streamed piece by piece when the caller streams. Natural mode and
 * `ai_synthesis: true` on a workflow both use it.
 */
import { toManifoldError } from "../../errors/index.js";
import { synthesisMessages, type LlmCompletion, type LlmProvider } from "../../llm/index.js";
import { getTelemetry } from "../../telemetry/index.js";
import { checkInteger } from "../../util/index.js";
import type { SynthesisInput } from "../orchestrator-types.js";
import type { RecordCall } from "./record.js";
import { llmEventScope } from "./run-context.js";
import { trimResults } from "./trim.js";

export interface SynthesisOptions {
  readonly signal?: AbortSignal;
  /** Given: the answer streams, each piece of text passed here as it arrives. */
  readonly onChunk?: (text: string) => void;
  readonly record?: RecordCall;
}

/** A synthesis request's `max_tokens`. */
export const SYNTHESIS_MAX_TOKENS = 4096;
/** Most bytes of a synthesised answer kept (and streamed); a longer one is cut and ends with {@link truncationMarker}. */
export const MAX_SYNTHESIS_BYTES = 32 * 1024;
export const truncationMarker = (maxBytes: number): string => `\n\n[answer truncated: it was longer than ${maxBytes} bytes]`;

export type LlmSynthesiser = (input: SynthesisInput, options?: SynthesisOptions) => Promise<string>;

export interface LlmSynthesiserOptions {
  readonly provider: LlmProvider;
  /** Most bytes of step results put into the prompt. @defaultValue 32 KiB */
  readonly resultBudgetBytes?: number;
  /** @defaultValue 0.3 */
  readonly temperature?: number;
}

/** What the model is shown of a run: each step's output or error by step id, or a workflow's outputs. */
function resultsOf({ mode, plan, result, outputs }: SynthesisInput): unknown {
  const byStep = Object.fromEntries(
    result.steps.map((step) => [
      step.step_id,
      step.status === "completed" ? { output: step.output } : { status: step.status, ...(step.error === undefined ? {} : { error: step.error.message }) },
    ]),
  );
  if (mode === "natural" || outputs === undefined) return byStep;
  const failed = Object.fromEntries(Object.entries(byStep).filter(([, entry]) => "status" in entry));
  return Object.keys(failed).length === 0 || plan.steps.length === 0 ? { outputs } : { outputs, failed_steps: failed };
}

function requestText({ mode, workflow, request }: SynthesisInput): string {
  if (typeof request === "string") return request;
  return `${mode === "natural" ? "" : `Workflow ${workflow ?? ""} run with inputs `}${JSON.stringify(request)}`;
}

export function createLlmSynthesiser({ provider, resultBudgetBytes = 32 * 1024, temperature = 0.3 }: LlmSynthesiserOptions): LlmSynthesiser {
  checkInteger("resultBudgetBytes", resultBudgetBytes, { min: 256 });
  return async (input, { signal, onChunk, record } = {}) => {
    const telemetry = getTelemetry();
    const trimmed = trimResults(resultsOf(input), resultBudgetBytes);
    if (trimmed.method !== "none") {
      const { method, content_lost, original_bytes, trimmed_bytes, fields_kept, fields_dropped } = trimmed;
      telemetry.event("result_trim.completed", { method, content_lost, original_bytes, trimmed_bytes, fields_kept, fields_dropped });
    }
    const steps = input.result.steps.map((s) => ({ step_id: s.step_id, component: s.component, capability: s.capability, status: s.status }));
    const messages = synthesisMessages(requestText(input), steps, trimmed.text);
    const type = onChunk === undefined ? "synthesis" : "synthesis_streaming";
    telemetry.event("llm.synthesis.request", {
      ...llmEventScope(),
      step_count: steps.length,
      temperature,
      max_tokens: SYNTHESIS_MAX_TOKENS,
      prompt_length: messages.reduce((n, m) => n + m.content.length, 0),
    });
    const started = Date.now();
    let chunks = 0;
    const call = (stream: boolean) =>
      provider.complete({
        phase: type,
        messages,
        temperature,
        maxTokens: SYNTHESIS_MAX_TOKENS,
        maxOutputBytes: MAX_SYNTHESIS_BYTES,
        ...(signal === undefined ? {} : { signal }),
        ...(stream && onChunk !== undefined
          ? {
              onChunk: (text: string) => {
                chunks += 1;
                onChunk(text);
              },
            }
          : {}),
      });
    try {
      let completion: LlmCompletion;
      let fellBack = false;
      try {
        completion = await call(true);
      } catch (error) {
        // An endpoint that cannot stream (it failed before the first piece) still gets to answer:
        // once more without streaming, its text then passed on as one piece. The model client is the
        // "client" of the spec's reason: it could not stream, so the answer comes whole.
        if (onChunk === undefined || chunks > 0 || toManifoldError(error).code !== "LLM_ERROR") throw error;
        fellBack = true;
        telemetry.event("orchestrator.streaming.fallback", { ...llmEventScope(), reason: "client_streaming_unsupported" });
        completion = await call(false);
        onChunk(completion.text);
      }
      record?.({ type, messages, attempt: 1, started, model: provider.model, completion });
      telemetry.event("llm.synthesis.response", {
        ...llmEventScope(),
        ...completion.usage,
        duration_ms: completion.duration_ms,
        streamed: completion.streamed,
        ...(fellBack ? { stream_fallback: true } : {}),
        ...(completion.truncated === true ? { truncated: true } : {}),
      });
      if (completion.truncated !== true) return completion.text;
      // Cut to the cap: the reader is told, streamed or not.
      const marker = truncationMarker(MAX_SYNTHESIS_BYTES);
      onChunk?.(marker);
      return completion.text + marker;
    } catch (error) {
      record?.({ type, messages, attempt: 1, started, model: provider.model, error });
      throw error;
    }
  };
}
