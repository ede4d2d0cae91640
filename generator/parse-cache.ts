/**
 * gen's parse cache, beside its content-hash cache: `.manifold-cache/parse.txt` holds, for every manifest
 * text gen last parsed with no diagnostic at all, the plain value the text parsed to, keyed by the text's
 * SHA-256. A text found there is not parsed (its YAML tree is made only if a later check needs a position),
 * so `gen --check` and gen after one manifest changed parse only the texts that changed. Every check still
 * runs on every value, and `--check` still compares output bytes. One line per text (`hash<TAB>json`),
 * each value parsed from its line only when asked for; values JSON cannot hold exactly (-0, NaN,
 * Infinity) are never cached. A cache written by another version of gen or of the YAML parser is ignored.
 */
import { createRequire } from "node:module";
import { MANIFOLD_VERSION, type ParsedValues } from "../runtime/manifest/index.js";
import { CACHE_FOLDER, contentHash, readCacheFile } from "./output-cache.js";
import { writeCacheFile } from "./output-folder.js";
import { jsonExact } from "./parse-values.js";
import { parseInWorkers, WORKER_MIN_BYTES } from "./parse-workers.js";
import { plainYamlValue } from "./plain-yaml.js";

export const PARSE_CACHE_FILE = `${CACHE_FOLDER}/parse.txt`;

function header(): string {
  const yaml = (createRequire(import.meta.url)("yaml/package.json") as { version: string }).version;
  return `manifold parse cache 1; manifold ${MANIFOLD_VERSION}; yaml ${yaml}`;
}

export class ParseCache implements ParsedValues {
  /** hash → the JSON line as read (parsed on use). */
  private readonly found: Map<string, string>;
  /** hash → JSON of the entries this run used or made, in the order met. */
  private readonly kept = new Map<string, string>();
  private added = 0;

  private constructor(found: Map<string, string>) {
    this.found = found;
  }

  /** The cache in output folder `dir`; empty when missing, a link, or written by another version. */
  static async read(dir: string): Promise<ParseCache> {
    const found = new Map<string, string>();
    const lines = ((await readCacheFile(dir, PARSE_CACHE_FILE))?.text ?? "").split("\n");
    if (lines[0] !== header()) return new ParseCache(found);
    for (let i = 1; i < lines.length; i++) {
      const tab = lines[i]!.indexOf("\t");
      if (tab > 0) found.set(lines[i]!.slice(0, tab), lines[i]!.slice(tab + 1));
    }
    return new ParseCache(found);
  }

  /**
   * Parses the texts it does not know in worker threads (when there is enough of them to pay), so the
   * loader finds their values known. `texts` as the parser is given them (manifestText).
   */
  async prime(sources: readonly { readonly file: string; readonly text: string }[], minBytes = WORKER_MIN_BYTES): Promise<void> {
    let unknown = sources.map((s) => ({ ...s, hash: contentHash(s.text) })).filter((s) => !this.found.has(s.hash));
    // Where workers would pay, the plain-subset reader goes first (a text outside it goes on to them): the
    // same threshold, so a small project is parsed by the loader as it always was.
    if (unknown.reduce((sum, s) => sum + s.text.length, 0) >= minBytes) {
      unknown = unknown.filter((s) => {
        const value = plainYamlValue(s.text);
        if (value === undefined) return true;
        this.found.set(s.hash, JSON.stringify(value));
        this.added++;
        return false;
      });
    }
    const answers = await parseInWorkers(unknown, minBytes);
    answers.forEach((json, i) => {
      if (json === undefined) return;
      this.found.set(unknown[i]!.hash, json);
      this.added++;
    });
  }

  get(text: string): Record<string, unknown> | undefined {
    const hash = contentHash(text);
    const line = this.found.get(hash);
    if (line === undefined) return undefined;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      return undefined;
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
    this.kept.set(hash, line);
    return value as Record<string, unknown>;
  }

  set(text: string, value: Record<string, unknown>): void {
    if (!jsonExact(value)) return;
    this.kept.set(contentHash(text), JSON.stringify(value));
    this.added++;
  }

  /** Writes the entries this run used or made, when they differ from what was read. */
  async write(dir: string): Promise<void> {
    if (this.added === 0 && this.kept.size === this.found.size) return;
    const lines = [...this.kept].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([hash, json]) => `${hash}\t${json}\n`);
    await writeCacheFile(dir, PARSE_CACHE_FILE, `${header()}\n${lines.join("")}`);
  }
}
