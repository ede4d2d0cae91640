/**
 * Positions: every check works on plain JS values, and finds where in the file a value came from by
 * walking the YAML tree along the same path.
 */
import type { Document, LineCounter } from "yaml";
import { START, type Position } from "./diagnostics/create.js";
import { isAlias, isMap, isNode, isScalar, isSeq, yaml } from "./yaml.js";

/** A path into the manifest value: mapping keys and list indexes. */
export type Path = readonly (string | number)[];

export interface SourceFile {
  /** Relative to the cwd, `/` separators. */
  readonly file: string;
  readonly text: string;
  readonly lineCounter: LineCounter;
  /** Absent when the text could not be parsed at all. */
  readonly document?: Document.Parsed | undefined;
}

export function positionAt(source: SourceFile, offset: number): Position {
  const { line, col } = source.lineCounter.linePos(offset);
  return line === 0 ? START : { line, column: col };
}

interface Step {
  readonly value: unknown;
  readonly key: unknown;
}

/** Every node from the root to the end of `path`, or to the last one that exists. */
function walk(source: SourceFile, path: Path): { readonly steps: readonly Step[]; readonly complete: boolean } {
  const doc = source.document;
  const steps: Step[] = [{ value: doc?.contents ?? null, key: undefined }];
  for (const segment of path) {
    const current = steps[steps.length - 1]!.value;
    const container = isAlias(current) && doc !== undefined ? current.resolve(doc) : current;
    if (isMap(container)) {
      const pair = container.items.find((p) => isScalar(p.key) && String(p.key.value) === String(segment));
      if (pair === undefined) break;
      steps.push({ value: pair.value, key: pair.key });
    } else if (isSeq(container)) {
      const item: unknown = container.items[Number(segment)];
      if (item === undefined) break;
      steps.push({ value: item, key: undefined });
    } else {
      break;
    }
  }
  return { steps, complete: steps.length === path.length + 1 };
}

function nodeStart(source: SourceFile, node: unknown, allowEmpty: boolean): Position | undefined {
  if (!isNode(node) || node.range == null) return undefined;
  const [start, end] = node.range;
  // An empty value (`port:` with nothing after it) has a zero-width range; its key is a better place.
  if (!allowEmpty && end <= start) return undefined;
  return positionAt(source, start);
}

function positionOfSteps(source: SourceFile, steps: readonly Step[]): Position {
  for (let i = steps.length - 1; i >= 0; i--) {
    const step = steps[i]!;
    const at = nodeStart(source, step.value, false) ?? nodeStart(source, step.key, true);
    if (at !== undefined) return at;
  }
  return nodeStart(source, source.document?.contents, true) ?? START;
}

/** Where the value at `path` starts; the nearest existing ancestor when it does not exist. */
export function valuePosition(source: SourceFile, path: Path): Position {
  return positionOfSteps(source, walk(source, path).steps);
}

/** Where the key of the last segment of `path` starts (a list item: where the item starts). */
export function keyPosition(source: SourceFile, path: Path): Position {
  const { steps, complete } = walk(source, path);
  if (complete) {
    const at = nodeStart(source, steps[steps.length - 1]!.key, true);
    if (at !== undefined) return at;
  }
  return positionOfSteps(source, steps);
}

/** Whether the value at `path` is written as a flow mapping `{ … }`. */
export function isFlowMapping(source: SourceFile, path: Path): boolean {
  const { steps, complete } = walk(source, path);
  const node = steps[steps.length - 1]?.value;
  return complete && isMap(node) && node.flow === true;
}

/**
 * Where character `offset` of the string value at `path` is, when the file spells the string exactly
 * as its value (a one-line plain or quoted scalar without escapes); else where the value starts.
 * Lets a diagnostic point at the `${` inside a longer text.
 */
export function offsetPosition(source: SourceFile, path: Path, offset: number): Position {
  const { steps, complete } = walk(source, path);
  const node = steps[steps.length - 1]?.value;
  if (complete && isScalar(node) && typeof node.value === "string" && node.range != null && offset >= 0 && offset <= node.value.length) {
    const [start, end] = node.range;
    const raw = source.text.slice(start, end);
    const { Scalar } = yaml();
    const quoted = node.type === Scalar.QUOTE_DOUBLE || node.type === Scalar.QUOTE_SINGLE;
    const inner = quoted ? raw.slice(1, -1) : raw;
    if ((quoted || node.type === Scalar.PLAIN) && inner === node.value) return positionAt(source, start + (quoted ? 1 : 0) + offset);
  }
  return valuePosition(source, path);
}

/** `capabilities[0].input.required[1].name`, for messages. */
export { displayPath } from "./dataflow/paths.js";
