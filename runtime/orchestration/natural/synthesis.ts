/**
 * The language-model synthesiser: a run's results (within a byte budget) and the original request
 * in, prose out, streamed piece by piece when the caller streams. Natural mode and
 * `ai_synthesis: true` on a workflow both use it. In natural mode results too big for the prompt
 * are distilled (distill-results.ts): a 10,000-row result is answered from its summary, not from
 * its first rows; elsewhere they are trimmed.
 */
import { toManifoldError } from "../../errors/index.js";
import { promptBytes, synthesisMessages, type LlmCompletion, type LlmProvider } from "../../llm/index.js";
import { getTelemetry } from "../../telemetry/index.js";
import { checkInteger } from "../../util/index.js";
import type { SynthesisInput } from "../orchestrator-types.js";
import type { RecordCall } from "./record.js";
import { promptBudgetBytes } from "./adaptive.js";
import type { Distiller } from "./distill.js";
import { showResults } from "./distill-results.js";
import { contextPrompt } from "../context.js";
import { currentNaturalRun, llmEventScope, type NaturalRun } from "./run-context.js";
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
  /** Most bytes of step results put into the prompt. @defaultValue natural mode: the request's result budget (`requestResultBudgetBytes`); else 32 KiB */
  readonly resultBudgetBytes?: number;
  /** @defaultValue 0.3 */
  readonly temperature?: number;
  /** Given: a natural-mode request's results too big for the prompt are distilled, not cut. */
  readonly distiller?: Distiller;
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

/** Bytes of the synthesis prompt kept free of results (escaping, rounding). */
const PROMPT_SLACK_BYTES = 256;

/** What a natural run's synthesis shows of the results: each step's output, distilled where it does not fit (distill-results.ts). */
async function naturalResults(input: SynthesisInput, run: NaturalRun, distiller: Distiller, given: number | undefined): Promise<string> {
  const { settings } = run;
  const steps = input.result.steps;
  const request = requestText(input);
  const shape = steps.map((s) => ({ step_id: s.step_id, component: s.component, capability: s.capability, status: s.status }));
  const context = contextPrompt(run.context, { synthesis: true });
  const room = promptBudgetBytes(settings) - promptBytes(synthesisMessages(request, shape, "", context)) - PROMPT_SLACK_BYTES;
  const budget = Math.min(settings.requestResultBudgetBytes, given ?? Number.POSITIVE_INFINITY);
  const totalBudget = Math.max(256, Math.min(budget, room));
  return showResults(
    distiller,
    steps.map((s) =>
      s.status === "completed"
        ? { step_id: s.step_id, capability: `${s.component}.${s.capability}`, output: s.output ?? null }
        : {
            step_id: s.step_id,
            capability: `${s.component}.${s.capability}`,
            other: { status: s.status, ...(s.error === undefined ? {} : { error: s.error.message }) },
          },
    ),
    { request, stepBudget: settings.resultBudgetBytes, totalBudget, contextBound: room < budget, nest: true, purpose: "synthesis" },
  );
}

/** Everything else (a workflow's `ai_synthesis`, no distiller): the results trimmed to the budget, the cut reported. */
function trimmedResults(input: SynthesisInput, budget: number): string {
  const trimmed = trimResults(resultsOf(input), budget);
  if (trimmed.method !== "none") {
    const { method, content_lost, original_bytes, trimmed_bytes, fields_kept, fields_dropped } = trimmed;
    getTelemetry().event("result_trim.completed", { method, content_lost, original_bytes, trimmed_bytes, fields_kept, fields_dropped });
  }
  return trimmed.text;
}

export function createLlmSynthesiser({ provider, resultBudgetBytes, temperature = 0.3, distiller }: LlmSynthesiserOptions): LlmSynthesiser {
  if (resultBudgetBytes !== undefined) checkInteger("resultBudgetBytes", resultBudgetBytes, { min: 256 });
  return async (input, { signal, onChunk, record } = {}) => {
    const telemetry = getTelemetry();
    const run = currentNaturalRun();
    const results =
      input.mode === "natural" && run !== undefined && distiller !== undefined
        ? await naturalResults(input, run, distiller, resultBudgetBytes)
        : trimmedResults(input, resultBudgetBytes ?? 32 * 1024);
    const steps = input.result.steps.map((s) => ({ step_id: s.step_id, component: s.component, capability: s.capability, status: s.status }));
    const messages = synthesisMessages(requestText(input), steps, results, contextPrompt(run?.context, { synthesis: true }));
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
