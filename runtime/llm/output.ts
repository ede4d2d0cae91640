/**
 * Bounds on what a model answers (issue 32 L2): a 10 MB plan was sent back whole in the correction
 * request, and a 10 MB synthesis returned and kept in chat history. Two bounds: the text a call keeps
 * (`maxOutputBytes` per request, streaming too: the stream is left once the text is full), and the
 * bytes read from any one answer body, so not even the client buffers an unbounded JSON answer.
 */
import { ManifoldError } from "../errors/index.js";

/** The text a call keeps when its request names no cap. */
export const DEFAULT_MAX_OUTPUT_BYTES = 256 * 1024;
/** The most bytes read of one answer body: JSON answers carry the text once, plus a little. */
const MAX_ANSWER_BODY_BYTES = 4 * 1024 * 1024;
/** A stream carries every piece in its own JSON event, so it is allowed more; the text cap stops it long before. */
const MAX_STREAM_BODY_BYTES = 16 * 1024 * 1024;

/** The error of an answer body past its cap; not retried (the same request would answer the same). */
const tooLarge = (limit: number): ManifoldError =>
  new ManifoldError("LLM_ERROR", `the language model's answer was larger than ${limit} bytes; it was not read`);

/** A body that errors with `tooLarge` once more than `limit` bytes have passed. */
function limitBody(body: ReadableStream<Uint8Array>, limit: number): ReadableStream<Uint8Array> {
  let read = 0;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        read += chunk.byteLength;
        if (read > limit) controller.error(tooLarge(limit));
        else controller.enqueue(chunk);
      },
    }),
  );
}

/** `fetch` for the `openai` client whose answer bodies are read up to the caps above. */
export function boundedFetch(base: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const response = await base(input, init);
    if (response.body === null) return response;
    const streamed = (response.headers.get("content-type") ?? "").includes("text/event-stream");
    const limit = streamed ? MAX_STREAM_BODY_BYTES : MAX_ANSWER_BODY_BYTES;
    const declared = Number(response.headers.get("content-length") ?? "0");
    if (declared > limit) {
      await response.body.cancel().catch(() => undefined);
      throw tooLarge(limit);
    }
    return new Response(limitBody(response.body, limit), { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
