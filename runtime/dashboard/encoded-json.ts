/**
 * A JSON answer encoded once and served many times: the UTF-8 bytes, a weak ETag of them, and (for a
 * body worth it) gzip and Brotli variants compressed on the thread pool, off every request's path.
 * `/api/services` with 1,000 registrations is about 1 MiB of text; handing Node that string made it
 * encode the whole of it again on every answer (measured: the largest single cost of the route), and
 * a browser polling every 2 s fetched the megabyte each time even when nothing had changed.
 */
import { createHash } from "node:crypto";
import { promisify } from "node:util";
import { brotliCompress, constants, gzip } from "node:zlib";

const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);

/** Below this a compressed variant saves less than its headers and the client's inflate cost. */
const COMPRESS_FROM_BYTES = 4096;

export type ContentEncoding = "br" | "gzip";

export interface EncodedJson {
  /** The UTF-8 bytes. */
  readonly identity: Buffer;
  /** Weak: the same entity whatever its content coding. */
  readonly etag: string;
  /** The variant in `encoding` once compressed; undefined while it is being made, or when the body is small. */
  compressed(encoding: ContentEncoding): Buffer | undefined;
}

export function encodeJson(text: string): EncodedJson {
  const identity = Buffer.from(text, "utf8");
  const etag = `W/"${createHash("sha1").update(identity).digest("base64url")}"`;
  const variants: Partial<Record<ContentEncoding, Buffer>> = {};
  if (identity.length >= COMPRESS_FROM_BYTES) {
    // Quality 4 / level 6: Brotli's default 11 takes over a second for a megabyte, for a few per cent less.
    // A failed compression leaves that variant out: the identity answer is always there.
    brotliAsync(identity, { params: { [constants.BROTLI_PARAM_QUALITY]: 4, [constants.BROTLI_PARAM_SIZE_HINT]: identity.length } })
      .then((body) => (variants.br = body))
      .catch(() => undefined);
    gzipAsync(identity, { level: 6 })
      .then((body) => (variants.gzip = body))
      .catch(() => undefined);
  }
  return { identity, etag, compressed: (encoding) => variants[encoding] };
}
