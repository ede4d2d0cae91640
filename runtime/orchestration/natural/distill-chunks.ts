/**
 * How a result too big for one prompt is cut for distillation, by its shape (the spec's
 * `chunk_strategy`):
 * - `array`: the items of a top-level array, or of the array that is an object's one big field
 *   (`{"total": 10000, "rows": [...]}`);
 * - `wrapper`: an object wrapping its bulk deeper (`{"data": {"rows": [...]}}`, `{"result": {…many
 *   fields}}`) or an object of many fields: split by the items or fields of that bulk;
 * - `lines`: text with newlines, split at them;
 * - `bytes`: anything else (a long line of text), cut at byte boundaries on a character.
 * Nothing is left out: the fields beside the bulk (the envelope) are the first pieces, and a piece
 * bigger than a chunk is itself cut in bytes, so every byte of the result is in some chunk.
 */

export type ChunkStrategy = "array" | "wrapper" | "lines" | "bytes";

export interface Chunk {
  /** The chunk's text (one item, field or line per line). */
  readonly text: string;
  /** What part of the result it is, for the model: "items 1–1250 of 10000". */
  readonly label: string;
}

export interface Chunked {
  readonly strategy: ChunkStrategy;
  readonly chunks: readonly Chunk[];
  /** The fields around the bulk, shortened: what each chunk's prompt is told for orientation. */
  readonly context: string;
  /** The chunks are JSON (items, fields), escaped as JSON in a prompt; else text. */
  readonly json: boolean;
}

/** A field holding at least this share of an object's bytes is its bulk. */
const DOMINANT_SHARE = 0.5;
/** Bytes of orientation (the envelope, shortened) each chunk's prompt carries. */
export const CONTEXT_BYTES = 512;

const byteLength = (text: string): number => Buffer.byteLength(text, "utf8");

/**
 * What a piece costs in a prompt: its bytes, plus the escaping `toolOutput` gives every `<`
 * (`\u003c` in JSON, `&lt;` in text: at most 5 more bytes each).
 */
export function promptWeight(text: string): number {
  let lt = 0;
  for (let i = text.indexOf("<"); i !== -1; i = text.indexOf("<", i + 1)) lt += 1;
  return byteLength(text) + lt * 5;
}

/** `text` cut into pieces of at most `size` bytes, never inside a character. */
export function splitBytes(text: string, size: number): string[] {
  const buffer = Buffer.from(text, "utf8");
  const out: string[] = [];
  let start = 0;
  while (start < buffer.length) {
    let end = Math.min(buffer.length, start + Math.max(4, size));
    // Back off continuation bytes (10xxxxxx): the cut falls between characters.
    while (end < buffer.length && end > start + 1 && (buffer[end]! & 0xc0) === 0x80) end -= 1;
    out.push(buffer.subarray(start, end).toString("utf8"));
    start = end;
  }
  return out;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
const json = (value: unknown): string => JSON.stringify(value) ?? "null";

interface Piece {
  readonly text: string;
  /** Index of the unit (item, field, line) it is or is part of. */
  readonly index: number;
}

interface Shape {
  readonly strategy: ChunkStrategy;
  readonly unit: "items" | "fields" | "lines" | "bytes";
  readonly pieces: readonly Piece[];
  readonly count: number;
  readonly envelope: Readonly<Record<string, unknown>>;
}

/** Follows the bulk down: each object whose one field holds most of its bytes is an envelope around it. */
function descend(value: unknown): { node: unknown; path: string[]; envelope: Record<string, unknown> } {
  let node = value;
  const path: string[] = [];
  const envelope: Record<string, unknown> = {};
  while (isObject(node)) {
    const sized = Object.entries(node).map(([key, item]) => ({ key, item, size: byteLength(json(item)) }));
    if (sized.length === 0) break;
    const total = sized.reduce((n, s) => n + s.size, 0);
    const big = sized.reduce((a, b) => (b.size > a.size ? b : a));
    if (big.size < total * DOMINANT_SHARE) break;
    for (const { key, item } of sized) if (key !== big.key) envelope[[...path, key].join(".")] = item;
    path.push(big.key);
    node = big.item;
  }
  return { node, path, envelope };
}

function shapeOf(value: unknown): Shape {
  const { node, path, envelope } = descend(value);
  if (Array.isArray(node)) {
    const pieces = node.map((item, index) => ({ text: json(item), index }));
    return { strategy: path.length <= 1 ? "array" : "wrapper", unit: "items", pieces, count: node.length, envelope };
  }
  if (isObject(node)) {
    const pieces = Object.entries(node).map(([key, item], index) => ({ text: `${JSON.stringify(key)}: ${json(item)}`, index }));
    return { strategy: "wrapper", unit: "fields", pieces, count: pieces.length, envelope };
  }
  const text = typeof node === "string" ? node : json(node);
  if (text.includes("\n")) {
    const lines = text.split("\n");
    return { strategy: "lines", unit: "lines", pieces: lines.map((line, index) => ({ text: line, index })), count: lines.length, envelope };
  }
  return { strategy: "bytes", unit: "bytes", pieces: [{ text, index: 0 }], count: byteLength(text), envelope };
}

/** The envelope cut to a prompt weight of at most {@link CONTEXT_BYTES}, marked when cut. */
function shortened(text: string): string {
  if (promptWeight(text) <= CONTEXT_BYTES) return text;
  let size = CONTEXT_BYTES - 4;
  let cut = splitBytes(text, size)[0]!;
  while (promptWeight(cut) > CONTEXT_BYTES - 4) cut = splitBytes(cut, (size = Math.floor(size / 2)))[0]!;
  return `${cut}…`;
}

function label(unit: Shape["unit"], first: number, last: number, count: number, part: string): string {
  if (unit === "bytes") return part;
  return `${unit} ${first + 1}–${last + 1} of ${count}`;
}

/**
 * `value` cut into chunks whose prompt weight is at most `chunkBytes` each, about equal: as few as
 * the budget allows, so bigger results get bigger chunks, never more of them than needed.
 */
export function chunkResult(value: unknown, chunkBytes: number): Chunked {
  const shape = shapeOf(value);
  const envelopeText = Object.keys(shape.envelope).length === 0 ? "" : json(shape.envelope);
  // The envelope is read like the rest (its fields can be big too): it is the first pieces.
  // `cont`: the rest of a piece cut in bytes, joined to its start without a newline.
  const pieces: { text: string; index: number; envelope: boolean; cont: boolean }[] = [];
  const add = (text: string, index: number, envelope: boolean): void => {
    if (promptWeight(text) + 1 <= chunkBytes) pieces.push({ text, index, envelope, cont: false });
    else splitBytes(text, Math.floor(chunkBytes / 6)).forEach((part, i) => pieces.push({ text: part, index, envelope, cont: i > 0 }));
  };
  for (const [key, item] of Object.entries(shape.envelope)) add(`${JSON.stringify(key)}: ${json(item)}`, -1, true);
  for (const piece of shape.pieces) add(piece.text, piece.index, false);
  const total = pieces.reduce((n, p) => n + promptWeight(p.text) + 1, 0);
  const target = Math.ceil(total / Math.max(1, Math.ceil(total / chunkBytes)));
  const chunks: Chunk[] = [];
  let current: typeof pieces = [];
  let size = 0;
  let offset = 0;
  const flush = (): void => {
    if (current.length === 0) return;
    const units = current.filter((p) => !p.envelope);
    const text = current.map((p, i) => (i === 0 ? "" : p.cont ? "" : "\n") + p.text).join("");
    const part = `bytes ${offset + 1}–${offset + byteLength(text)} of ${shape.count}`;
    const what =
      units.length === 0
        ? "the result's fields around its bulk"
        : `${current.some((p) => p.envelope) ? "the fields around the bulk, then " : ""}${label(shape.unit, units[0]!.index, units.at(-1)!.index, shape.count, part)}`;
    offset += byteLength(text);
    chunks.push({ text, label: what });
    current = [];
    size = 0;
  };
  for (const piece of pieces) {
    const weight = promptWeight(piece.text) + 1;
    if (current.length > 0 && (size + weight > chunkBytes || size >= target)) flush();
    current.push(piece);
    size += weight;
  }
  flush();
  return { strategy: shape.strategy, chunks, context: shortened(envelopeText), json: shape.unit === "items" || shape.unit === "fields" };
}
