/**
 * The embeddings call's bounds and answer check, beside the provider's `embed` (provider.ts). Inputs
 * are bounded per call (count and bytes) so one caller cannot send a megabyte-sized request, and an
 * answer must hold one finite vector per input, all of one length: anything else is unusable.
 */
import { ManifoldError } from "../errors/index.js";

/** What `MANIFOLD_EMBEDDING_MODEL` falls back to. */
export const DEFAULT_EMBEDDING_MODEL = "text-embedding-3-small";
/** Inputs per embeddings call at most (a caller with more batches them). */
export const MAX_EMBEDDING_INPUTS = 64;
/** UTF-8 bytes per input at most (a caller cuts longer texts). */
export const MAX_EMBEDDING_INPUT_BYTES = 8192;

/** The inputs checked against the bounds; a caller past them made a mistake, so this is a RangeError. */
export function checkEmbeddingInput(input: readonly string[]): readonly string[] {
  if (!Array.isArray(input) || input.length === 0 || input.length > MAX_EMBEDDING_INPUTS)
    throw new RangeError(`embed takes 1 to ${MAX_EMBEDDING_INPUTS} inputs per call`);
  for (const text of input) {
    if (typeof text !== "string" || text === "") throw new RangeError("each embedding input must be a non-empty string");
    if (Buffer.byteLength(text) > MAX_EMBEDDING_INPUT_BYTES) throw new RangeError(`each embedding input must be at most ${MAX_EMBEDDING_INPUT_BYTES} bytes`);
  }
  return input;
}

interface EmbeddingAnswer {
  readonly data?: readonly { readonly index?: number; readonly embedding?: unknown }[];
}

const unusable = (why: string): ManifoldError => new ManifoldError("LLM_ERROR", `the embeddings endpoint answered with something unusable: ${why}`);

/** One vector per input in input order (answers carry an `index`), each of finite numbers, all of one length. */
export function vectorsOf(answer: EmbeddingAnswer, count: number): number[][] {
  const data = answer.data;
  if (!Array.isArray(data) || data.length !== count) throw unusable(`expected ${count} vectors`);
  const vectors: (number[] | undefined)[] = new Array(count);
  data.forEach((item, position) => {
    const at = typeof item?.index === "number" ? item.index : position;
    const embedding = item?.embedding;
    if (!Number.isInteger(at) || at < 0 || at >= count || vectors[at] !== undefined) throw unusable("vector indexes do not match the inputs");
    if (!(Array.isArray(embedding) || embedding instanceof Float32Array) || embedding.length === 0) throw unusable("a vector is missing");
    const vector = Array.from(embedding as ArrayLike<number>);
    if (!vector.every(Number.isFinite)) throw unusable("a vector holds something other than numbers");
    vectors[at] = vector;
  });
  const dimensions = vectors[0]!.length;
  if (vectors.some((v) => v!.length !== dimensions)) throw unusable("vectors of different lengths");
  return vectors as number[][];
}
