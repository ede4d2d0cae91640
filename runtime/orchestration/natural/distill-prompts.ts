/**
 * The result-distillation prompts (interaction type `result_distillation`, plain text answers): one
 * that summarises a chunk of a step's result against the user's request (stage 1, map) and one that
 * merges the chunks' summaries (stage 2, reduce). Tool output and the summaries built from it reach
 * the model only inside `toolOutput()`, and both system prompts carry the data rule.
 */
import { DATA_RULE, toolOutput, type LlmMessage } from "../../llm/index.js";

/** The system prompts begin with these (what an observer tells the two stages apart by). */
export const MAP_SYSTEM_START = "You summarise one part of a tool's result";
export const REDUCE_SYSTEM_START = "You merge the summaries of the parts of one tool's result";

const KEEP = `Keep every fact the request may need: names, identifiers, numbers, dates, units, and which items they belong to. Where the part lists many similar items, give their count and the totals, ranges and groupings the request could ask about, and list the items that match the request. Do not invent anything; say what the part does not contain when the request asks for it.`;

export interface DistillStep {
  /** The user's request, which the summary serves. */
  readonly request: string;
  readonly stepId: string;
  /** `component.capability` that produced the result. */
  readonly capability: string;
}

/** Stage 1: one chunk of the result, summarised in at most `maxBytes`. */
export function mapMessages(
  { request, stepId, capability }: DistillStep,
  chunk: { readonly text: string; readonly label: string; readonly context: string; readonly json?: boolean },
  part: { readonly index: number; readonly count: number; readonly maxBytes: number },
): LlmMessage[] {
  const around = chunk.context === "" ? "" : `\nThe result's other fields (shortened):\n${toolOutput(chunk.context, { json: true, source: "envelope" })}\n`;
  return [
    {
      role: "system",
      content: `${MAP_SYSTEM_START} for another step that answers a user's request from it. ${KEEP} Answer in plain text of at most ${part.maxBytes} bytes, no preamble. ${DATA_RULE}`,
    },
    {
      role: "user",
      content: `Request: ${request}\n\nResult of step ${stepId} (${capability}), part ${part.index + 1} of ${part.count}: ${chunk.label}.${around}\n${toolOutput(chunk.text, { json: chunk.json === true, source: `${stepId} part ${part.index + 1}` })}`,
    },
  ];
}

/** Stage 2: the parts' summaries merged into one of at most `maxBytes`. */
export function reduceMessages({ request, stepId, capability }: DistillStep, summaries: readonly string[], maxBytes: number): LlmMessage[] {
  const parts = summaries.map((text, i) => `Part ${i + 1}:\n${text}`).join("\n\n");
  return [
    {
      role: "system",
      content: `${REDUCE_SYSTEM_START} into one summary for another step that answers a user's request from it. ${KEEP} Add up counts and totals across the parts instead of repeating them per part. Answer in plain text of at most ${maxBytes} bytes, no preamble. ${DATA_RULE}`,
    },
    {
      role: "user",
      content: `Request: ${request}\n\nSummaries of the ${summaries.length} parts of step ${stepId}'s result (${capability}), in order:\n${toolOutput(parts, { source: `${stepId} summaries` })}`,
    },
  ];
}
