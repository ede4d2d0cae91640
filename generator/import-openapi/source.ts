/**
 * Reading the document an import starts from: a file or an http(s) URL, bounded in size and time,
 * parsed as YAML (JSON is YAML), with the line and column of every node for the report.
 */
import { readFile, stat } from "node:fs/promises";
import { LineCounter, parseDocument, type Document } from "yaml";

/** The largest document read (the GitHub description is ~13 MB). */
export const MAX_DOCUMENT_BYTES = 32 * 1024 * 1024;
/** How long a URL may take to answer in full, unless `--timeout` says otherwise. */
export const FETCH_TIMEOUT_MS = 30_000;
/** The longest `--timeout` taken. */
export const MAX_FETCH_TIMEOUT_MS = 600_000;

/** A URL as messages and written files show it: no user info, query or fragment (they may hold a credential). */
export function printableSource(given: string): string {
  if (!/^https?:\/\//i.test(given)) return given;
  try {
    const url = new URL(given);
    return `${url.protocol}//${url.host}${url.pathname}`;
  } catch {
    return "(an invalid URL)";
  }
}

/** Why a fetch failed, in a few words: the timeout, or the network error's code. */
function fetchFailure(error: unknown, timeoutMs: number): string {
  const name = error instanceof Error ? error.name : "";
  if (name === "TimeoutError" || name === "AbortError") return `did not answer in full within ${timeoutMs} ms`;
  const cause = error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined;
  return `could not be reached${typeof cause?.code === "string" ? ` (${cause.code})` : ""}`;
}

export interface SourceDocument {
  /** The file path or URL, as given. */
  readonly name: string;
  readonly value: Readonly<Record<string, unknown>>;
  /** `name:line:col` of the node at a JSON pointer path, or of its nearest ancestor that has one. */
  readonly where: (path: readonly string[]) => string;
}

async function readUrl(given: string, timeoutMs: number): Promise<string> {
  const url = printableSource(given);
  try {
    return await fetchText(given, url, timeoutMs);
  } catch (error) {
    if (error instanceof Error && error.message.startsWith(url)) throw error;
    throw new Error(`${url} ${fetchFailure(error, timeoutMs)}`);
  }
}

/** The body, read while the one timeout (headers and body together) runs; bounded by MAX_DOCUMENT_BYTES. */
async function fetchText(given: string, url: string, timeoutMs: number): Promise<string> {
  const response = await fetch(given, {
    signal: AbortSignal.timeout(timeoutMs),
    headers: { accept: "application/json, application/yaml, text/yaml, */*" },
  });
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw new Error(`${url} answered ${response.status}${response.statusText === "" ? "" : ` ${response.statusText}`}`.split(/[\r\n]/)[0]!);
  }
  const declared = Number(response.headers.get("content-length") ?? "0");
  if (declared > MAX_DOCUMENT_BYTES) throw new Error(`${url} is larger than ${MAX_DOCUMENT_BYTES} bytes`);
  const reader = response.body?.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (let part = await reader?.read(); part !== undefined && !part.done; part = await reader?.read()) {
    size += part.value.byteLength;
    if (size > MAX_DOCUMENT_BYTES) {
      await reader?.cancel().catch(() => undefined);
      throw new Error(`${url} is larger than ${MAX_DOCUMENT_BYTES} bytes`);
    }
    chunks.push(part.value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

async function readPath(path: string): Promise<string> {
  const size = (await stat(path)).size;
  if (size > MAX_DOCUMENT_BYTES) throw new Error(`${path} is larger than ${MAX_DOCUMENT_BYTES} bytes`);
  return readFile(path, "utf8");
}

function locator(name: string, document: Document, lines: LineCounter): (path: readonly string[]) => string {
  return (path) => {
    for (let length = path.length; length >= 0; length--) {
      const node = document.getIn(path.slice(0, length), true) as { range?: [number, number, number] } | undefined;
      if (node?.range !== undefined) {
        const { line, col } = lines.linePos(node.range[0]);
        return `${name}:${line}:${col}`;
      }
    }
    return name;
  };
}

/** Reads and parses the document; throws an Error with a one-line message when it cannot. */
export async function readSource(given: string, { timeoutMs = FETCH_TIMEOUT_MS }: { timeoutMs?: number } = {}): Promise<SourceDocument> {
  const remote = /^https?:\/\//i.test(given);
  const text = remote ? await readUrl(given, timeoutMs) : await readPath(given);
  const name = printableSource(given);
  const lines = new LineCounter();
  // JSON documents are YAML too; the one parser gives positions for both.
  const document = parseDocument(text, { lineCounter: lines, uniqueKeys: false, stringKeys: true });
  if (document.errors.length > 0) {
    const [first] = document.errors;
    throw new Error(`${name} is not valid YAML or JSON: ${first!.message.split("\n")[0]}`);
  }
  const value: unknown = document.toJS({ maxAliasCount: 100 });
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new Error(`${name} is not an OpenAPI document (not an object)`);
  return { name, value: value as Record<string, unknown>, where: locator(name, document, lines) };
}
