/**
 * Reading the document an import starts from: a file or an http(s) URL, bounded in size and time,
 * parsed as YAML (JSON is YAML), with the line and column of every node for the report.
 */
import { readFile, stat } from "node:fs/promises";
import { LineCounter, parseDocument, type Document } from "yaml";

/** The largest document read (the GitHub description is ~13 MB). */
export const MAX_DOCUMENT_BYTES = 32 * 1024 * 1024;
/** How long a URL may take to answer in full. */
export const FETCH_TIMEOUT_MS = 30_000;

export interface SourceDocument {
  /** The file path or URL, as given. */
  readonly name: string;
  readonly value: Readonly<Record<string, unknown>>;
  /** `name:line:col` of the node at a JSON pointer path, or of its nearest ancestor that has one. */
  readonly where: (path: readonly string[]) => string;
}

async function readUrl(url: string): Promise<string> {
  const response = await fetch(url, {
    signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
    headers: { accept: "application/json, application/yaml, text/yaml, */*" },
  });
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  const declared = Number(response.headers.get("content-length") ?? "0");
  if (declared > MAX_DOCUMENT_BYTES) throw new Error(`${url} is larger than ${MAX_DOCUMENT_BYTES} bytes`);
  const reader = response.body?.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (let part = await reader?.read(); part !== undefined && !part.done; part = await reader?.read()) {
    size += part.value.byteLength;
    if (size > MAX_DOCUMENT_BYTES) {
      await reader?.cancel();
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
export async function readSource(given: string): Promise<SourceDocument> {
  const remote = /^https?:\/\//i.test(given);
  const text = remote ? await readUrl(given) : await readPath(given);
  const lines = new LineCounter();
  // JSON documents are YAML too; the one parser gives positions for both.
  const document = parseDocument(text, { lineCounter: lines, uniqueKeys: false, stringKeys: true });
  if (document.errors.length > 0) {
    const [first] = document.errors;
    throw new Error(`${given} is not valid YAML or JSON: ${first!.message.split("\n")[0]}`);
  }
  const value: unknown = document.toJS({ maxAliasCount: 100 });
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new Error(`${given} is not an OpenAPI document (not an object)`);
  return { name: given, value: value as Record<string, unknown>, where: locator(given, document, lines) };
}
