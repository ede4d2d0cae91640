/**
 * The scripted server's `POST /v1/embeddings` (scripted-llm.ts): deterministic vectors, so retrieval
 * suites can reason about them. A text's vector is its hashed bag of words (the lexical index's own
 * terms: stemmed, accent-folded, no stop words) in 64 dimensions, each word adding ±1 to one
 * dimension, unit-normalised: texts sharing words point the same way, others are nearly orthogonal.
 */
import type { ServerResponse } from "node:http";
import { tokenize } from "../../runtime/memory/retrieval/index.js";

export const SCRIPTED_EMBEDDING_DIMENSIONS = 64;

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

/** The vector the scripted server answers for `text`. */
export function scriptedEmbedding(text: string, dimensions = SCRIPTED_EMBEDDING_DIMENSIONS): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  const terms = tokenize(text);
  for (const term of terms) {
    const hash = fnv1a(term);
    vector[hash % dimensions]! += hash & 0x10000 ? -1 : 1;
  }
  // Words that cancel out (or none) still give a unit vector: real endpoints never answer a zero vector.
  if (!vector.some((v) => v !== 0)) vector[fnv1a(text) % dimensions] = 1;
  const norm = Math.hypot(...vector);
  return vector.map((v) => v / norm);
}

const words = (text: string): number => text.split(/\s+/).filter(Boolean).length;

/** Answers one embeddings request: an OpenAI `list` of `embedding` objects, floats or base64 as asked, with usage counted in words. */
export function answerEmbeddings(res: ServerResponse, body: any, embed: (text: string) => number[] = scriptedEmbedding): void {
  const inputs: unknown[] = Array.isArray(body?.input) ? body.input : [body?.input];
  if (inputs.some((input) => typeof input !== "string" || input === "")) {
    res.writeHead(400, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: { message: "input must be a non-empty string or an array of them" } }));
    return;
  }
  const texts = inputs as string[];
  const base64 = body.encoding_format === "base64";
  const data = texts.map((text, index) => {
    const vector = embed(text);
    const embedding = base64 ? Buffer.from(new Float32Array(vector).buffer).toString("base64") : vector;
    return { object: "embedding", index, embedding };
  });
  const tokens = texts.reduce((sum, text) => sum + words(text), 0);
  res.writeHead(200, { "content-type": "application/json" });
  res.end(
    JSON.stringify({
      object: "list",
      data,
      model: typeof body.model === "string" ? body.model : "scripted-embedding",
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    }),
  );
}
