/**
 * An embeddings call in the request's LLM debug record (SPEC: interactions of category `embedding`):
 * the inputs as the prompt, and as the response one line naming how many vectors of what size came
 * back (the vectors themselves would be kilobytes of numbers nobody reads).
 */
import type { EmbeddingResult } from "../../llm/index.js";
import type { EmbeddingRecorder } from "./types.js";

export interface EmbeddingCall {
  readonly type: string;
  readonly inputs: readonly string[];
  /** Date.now() when the call started. */
  readonly started: number;
  /** The model asked for (an answer names its own). */
  readonly model: string;
  readonly result?: EmbeddingResult;
  readonly error?: unknown;
}

export function recordEmbedding(record: EmbeddingRecorder | undefined, { type, inputs, started, model, result, error }: EmbeddingCall): void {
  if (record === undefined) return;
  const messages = inputs.map((content) => ({ role: "user" as const, content }));
  const completion =
    result === undefined
      ? undefined
      : {
          text: `${result.vectors.length} vectors of ${result.vectors[0]?.length ?? 0} dimensions`,
          usage: result.usage,
          model: result.model,
          finish_reason: undefined,
          duration_ms: result.duration_ms,
          streamed: false,
        };
  record({
    type,
    category: "embedding",
    messages,
    attempt: 1,
    started,
    model: result?.model ?? model,
    ...(completion === undefined ? {} : { completion }),
    ...(error === undefined ? {} : { error }),
  });
}
