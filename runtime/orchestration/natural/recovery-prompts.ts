/**
 * The error-analysis request of natural mode's recovery: what the model is told of a failed step
 * (the capability, its input schema, the parameters sent, the projected failure, and the earlier
 * steps' data its input came from) and the JSON it answers with (DESIGN §5.3 `error_analysis`).
 * Everything a tool or the plan produced goes in as data (`toolOutput`), never as instructions.
 */
import { DATA_RULE, parseJsonAnswer, toolOutput, type LlmMessage } from "../../llm/index.js";

/** The json_schema `name` a scripted server tells the request apart by (DESIGN §5.3). */
export const ERROR_ANALYSIS = "error_analysis";

export const ERROR_ANALYSIS_SCHEMA: Readonly<Record<string, unknown>> = {
  type: "object",
  properties: {
    recoverable: { type: "boolean" },
    reason: { type: "string" },
    parameters: { type: "object" },
  },
  required: ["recoverable", "reason"],
  additionalProperties: false,
};

export interface ErrorAnalysisInput {
  readonly component: string;
  readonly capability: string;
  /** The capability's input as JSON Schema, when the catalog describes it. */
  readonly inputSchema: unknown;
  /** The parameters the failed call was sent, as JSON text already trimmed to the result budget (recovery.ts). */
  readonly parameters: string;
  /** The projected failure (failure-evidence.ts). */
  readonly failure: string;
  /** The earlier steps' outputs the step's templates read, trimmed: contextual re-resolution. */
  readonly sources?: string;
  /** The user's request the plan serves. */
  readonly request: string;
}

const RULES = `A call to an HTTP capability failed because the capability refused its input. Decide whether different parameters could make the same call succeed.
Answer with one JSON object and nothing else: {"recoverable": true|false, "reason": "<one sentence>", "parameters": {...}}
- recoverable is true only when you can give corrected parameters that fit the input schema and still serve the user's request.
- parameters is the complete corrected input (every field the call needs, not only the changed ones); leave it out when recoverable is false.
- Use only values from the user's request, the parameters sent and the data shown; never invent identifiers or facts.
- ${DATA_RULE}`;

export function errorAnalysisMessages(input: ErrorAnalysisInput): LlmMessage[] {
  const schema = input.inputSchema === undefined ? "(not described: any JSON object)" : JSON.stringify(input.inputSchema);
  const parts = [
    `User request: ${input.request}`,
    `Capability: ${input.component}.${input.capability}`,
    `Input schema: ${schema}`,
    `Parameters sent:\n${toolOutput(input.parameters, { json: true, source: "parameters" })}`,
    `Failure:\n${toolOutput(input.failure, { json: true, source: "failure" })}`,
  ];
  if (input.sources !== undefined)
    parts.push(
      `The parameters were taken from these earlier steps' results (JSON, by step id); re-derive them from this data if the first derivation was wrong:\n${toolOutput(input.sources, { json: true, source: "earlier_results" })}`,
    );
  return [
    { role: "system", content: RULES },
    { role: "user", content: parts.join("\n\n") },
  ];
}

export interface ErrorAnalysis {
  readonly recoverable: boolean;
  readonly reason: string;
  readonly parameters?: Readonly<Record<string, unknown>>;
}

/** The model's answer, or undefined when it is not the JSON asked for. */
export function parseErrorAnalysis(text: string): ErrorAnalysis | undefined {
  const value = parseJsonAnswer(text);
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const { recoverable, reason, parameters } = value as Record<string, unknown>;
  if (typeof recoverable !== "boolean") return undefined;
  const isObject = typeof parameters === "object" && parameters !== null && !Array.isArray(parameters);
  return {
    recoverable,
    reason: typeof reason === "string" ? reason : "",
    ...(isObject ? { parameters: parameters as Record<string, unknown> } : {}),
  };
}
