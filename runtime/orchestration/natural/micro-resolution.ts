/**
 * Micro-resolution (issue 27 item 4, DESIGN §5.3): one small model call that derives the value of one
 * parameter from the output of the step its template read, when the value the template gave does not
 * fit the parameter's schema (an array where a string is required, an object where a number is, a
 * field the output lacks). The model answers `{"value": …}` under the `micro_resolution` json_schema;
 * the caller (binding.ts) checks the value against the schema before anything is dispatched.
 *
 * The source output reaches the prompt only trimmed to the request's result budget and inside the
 * tool-output delimiter. Span events carry sizes and names, never the prompt or the answer (the LLM
 * debug record holds those).
 */
import { toManifoldError } from "../../errors/index.js";
import { DATA_RULE, parseJsonAnswer, toolOutput, type LlmMessage, type LlmProvider } from "../../llm/index.js";
import { jsonTooLarge } from "./check-plan.js";
import { quoteBudgetBytes } from "./adaptive.js";
import { llmEventScope, requestEvent, type NaturalRun } from "./run-context.js";
import { trimmedText } from "./trim.js";

/** A micro-resolution's `max_tokens`: one value, not prose. */
export const MICRO_RESOLUTION_MAX_TOKENS = 1024;
/** Most bytes of the model's answer kept; a longer one is not a value. */
export const MICRO_RESOLUTION_MAX_BYTES = 16 * 1024;

export interface MicroResolutionRequest {
  readonly provider: LlmProvider;
  readonly run: NaturalRun;
  readonly stepId: string;
  /** `<agent>.<capability>` of the step being bound. */
  readonly capability: string;
  readonly param: string;
  /** The parameter's JSON schema (a property of the capability's input schema). */
  readonly schema: Readonly<Record<string, unknown>>;
  /** The parameter's value in the plan, with its template(s). */
  readonly template: string;
  readonly sourceStep: string;
  /** The source step's whole output. */
  readonly source: unknown;
}

/** The model's value, or why there is none (a fixed phrase for the step's error). */
export type MicroResolution = { readonly value: unknown } | { readonly failed: string };

const SYSTEM = `You bind one parameter of a capability call. The plan passed an earlier step's output to it with a template, and at run time the value the template read does not fit the parameter's JSON schema (a wrong type or shape, or a field the output lacks). Derive the one value the parameter should have from that earlier step's output.
Answer with one JSON object and nothing else: {"value": <the value, valid against the parameter's schema>}.
Use only data present in the output; never invent a value. If nothing in it fits, answer {"value": null}.
${DATA_RULE}`;

export function microResolutionMessages(request: MicroResolutionRequest, sourceText: string): LlmMessage[] {
  const { capability, param, schema, template, sourceStep } = request;
  const user = `Capability: ${capability}
Parameter: ${param}
Its JSON schema: ${JSON.stringify(schema)}
Its value in the plan: ${JSON.stringify(template)}

Output of step ${sourceStep} (JSON):
${toolOutput(sourceText, { json: true, source: sourceStep })}`;
  return [
    { role: "system", content: SYSTEM },
    { role: "user", content: user },
  ];
}

/** The response format: `{"value": <the parameter's schema>}`. */
const answerSchema = (schema: Readonly<Record<string, unknown>>): Record<string, unknown> => ({
  type: "object",
  properties: { value: schema },
  required: ["value"],
  additionalProperties: false,
});

/** `{"value": …}` out of the model's text (a fenced block unwrapped), or undefined. */
export function parseMicroAnswer(text: string): { readonly value: unknown } | undefined {
  const parsed = parseJsonAnswer(text);
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed) || !Object.hasOwn(parsed, "value")) return undefined;
  if (jsonTooLarge(parsed) !== undefined) return undefined;
  return { value: (parsed as { value: unknown }).value };
}

/** Trims the source output to the run's result budget; `result_trim.micro_resolution` when anything was cut. */
function sourceText({ run, stepId, param, sourceStep, source }: MicroResolutionRequest): string {
  return trimmedText("result_trim.micro_resolution", source ?? null, quoteBudgetBytes(run.settings), {
    step_id: stepId,
    param_name: param,
    source_step: sourceStep,
  });
}

/**
 * One `micro_resolution` call. The caller has checked that micro-resolution is on and the budget
 * allows the call; a call that fails anyway (the endpoint, the budget, the request's timeout) is a
 * `failed` answer, never an exception: the step is then rejected, not the run.
 */
export async function microResolve(request: MicroResolutionRequest): Promise<MicroResolution> {
  const { provider, run, stepId, capability, param, schema } = request;
  const messages = microResolutionMessages(request, sourceText(request));
  requestEvent("llm.micro_resolution.request", {
    ...llmEventScope(),
    step_id: stepId,
    capability,
    param_name: param,
    prompt_length: messages.reduce((n, m) => n + m.content.length, 0),
    max_tokens: MICRO_RESOLUTION_MAX_TOKENS,
  });
  const started = Date.now();
  try {
    const completion = await provider.complete({
      phase: "micro_resolution",
      messages,
      json: { name: "micro_resolution", schema: answerSchema(schema) },
      temperature: 0,
      maxTokens: MICRO_RESOLUTION_MAX_TOKENS,
      maxOutputBytes: MICRO_RESOLUTION_MAX_BYTES,
      signal: run.signal,
    });
    run.record?.({ type: "micro_resolution", messages, attempt: 1, started, model: provider.model, completion });
    const answer = completion.truncated === true ? undefined : parseMicroAnswer(completion.text);
    requestEvent("llm.micro_resolution.response", {
      ...llmEventScope(),
      step_id: stepId,
      capability,
      param_name: param,
      response_length: completion.text.length,
      parsed: answer !== undefined,
      ...completion.usage,
      duration_ms: completion.duration_ms,
    });
    if (answer === undefined) return { failed: 'the language model\'s answer was not a {"value": …} object' };
    return answer;
  } catch (error) {
    run.record?.({ type: "micro_resolution", messages, attempt: 1, started, model: provider.model, error });
    requestEvent("llm.micro_resolution.response", {
      ...llmEventScope(),
      step_id: stepId,
      capability,
      param_name: param,
      error_code: toManifoldError(error).code,
      duration_ms: Date.now() - started,
    });
    return { failed: "the language-model call failed" };
  }
}
