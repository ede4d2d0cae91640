import type { Diagnostic, Severity } from "../project.js";
import { maskedColumn, maskMessage, maskSecrets, type LineEdits } from "./mask.js";

export type DiagnosticFormat = "pretty" | "json" | "github";

export interface FormatOptions {
  /** ANSI colour in `pretty` output; the caller decides (TTY, `NO_COLOR`). */
  readonly color: boolean;
  /**
   * Source text by diagnostic `file` (`Project.sources`). With it, `pretty` output shows the line and
   * a caret under the column.
   * @defaultValue no source lines
   */
  readonly sources?: ReadonlyMap<string, string>;
}

const ANSI = {
  red: ["\u001b[31m", "\u001b[39m"],
  yellow: ["\u001b[33m", "\u001b[39m"],
  dim: ["\u001b[2m", "\u001b[22m"],
} as const;

type Paint = (style: keyof typeof ANSI, text: string) => string;

/**
 * Secret values in the sources (credential-like keys, passwords in URLs) are masked in the code frames,
 * and in the messages of every format, so a refused credential never reaches a CI log.
 */
export function formatDiagnostics(shown: readonly Diagnostic[], format: DiagnosticFormat, options: FormatOptions): string {
  const masked = maskSources(shown, options.sources);
  const diagnostics = masked.values.length === 0 ? shown : shown.map((d) => ({ ...d, message: maskMessage(d.message, masked.values) }));
  switch (format) {
    case "json":
      return JSON.stringify(
        diagnostics.map(({ file, line, column, severity, code, message }) => ({ file, line, column, severity, code, message })),
        null,
        2,
      );
    case "github":
      return diagnostics.map(formatGithub).join("\n");
    case "pretty":
      return formatPretty(diagnostics, options.color, masked);
  }
}

interface MaskedSources {
  readonly sources?: ReadonlyMap<string, string>;
  /** By file, then 1-based line: the ranges masked, to keep carets under their column. */
  readonly edits: ReadonlyMap<string, ReadonlyMap<number, LineEdits>>;
  readonly values: readonly string[];
}

/** The sources of the files the diagnostics name, masked; the values masked in them. */
function maskSources(diagnostics: readonly Diagnostic[], sources: ReadonlyMap<string, string> | undefined): MaskedSources {
  if (sources === undefined) return { edits: new Map(), values: [] };
  const masked = new Map<string, string>();
  const edits = new Map<string, ReadonlyMap<number, LineEdits>>();
  const values: string[] = [];
  for (const file of new Set(diagnostics.map((d) => d.file))) {
    const text = sources.get(file);
    if (text === undefined) continue;
    const result = maskSecrets(text);
    masked.set(file, result.text);
    edits.set(file, result.edits);
    values.push(...result.values);
  }
  return { sources: masked, edits, values };
}

function severityStyle(severity: Severity): "red" | "yellow" {
  return severity === "error" ? "red" : "yellow";
}

function formatPretty(diagnostics: readonly Diagnostic[], color: boolean, { sources, edits }: MaskedSources): string {
  const paint: Paint = color ? (style, text) => `${ANSI[style][0]}${text}${ANSI[style][1]}` : (_style, text) => text;
  const lineCache = new Map<string, readonly string[]>();
  const linesOf = (file: string): readonly string[] | undefined => {
    const text = sources?.get(file);
    if (text === undefined) return undefined;
    let lines = lineCache.get(file);
    if (lines === undefined) {
      lines = text.split(/\r\n|\r|\n/);
      lineCache.set(file, lines);
    }
    return lines;
  };
  return diagnostics
    .map((d) => {
      const head = `${d.file}:${d.line}:${d.column} - ${paint(severityStyle(d.severity), d.severity)} ${paint("dim", d.code)}: ${d.message}`;
      const source = linesOf(d.file)?.[d.line - 1];
      const column = maskedColumn(d.column, edits.get(d.file)?.get(d.line));
      return source === undefined ? head : `${head}\n${excerpt(source, { ...d, column }, paint)}`;
    })
    .join("\n\n");
}

/** Characters of a source line shown around the column: a line is context, never a way to dump a file. */
export const EXCERPT_WIDTH = 160;

/**
 * The source line under a gutter, and a caret that stays under the column even when the line has tabs.
 * A long line is cut to EXCERPT_WIDTH characters around the column (`…` marks the cuts), and control
 * characters are shown as `?`, so a file can neither flood the terminal nor send it escape sequences.
 */
function excerpt(line: string, d: Diagnostic, paint: Paint): string {
  const column = Math.max(0, d.column - 1);
  const start = Math.max(0, Math.min(column - EXCERPT_WIDTH / 2, line.length - EXCERPT_WIDTH));
  const end = Math.min(line.length, start + EXCERPT_WIDTH);
  const safe = (text: string): string => text.replace(/[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u2028\u2029]/g, "?");
  const before = start > 0 ? "…" : "";
  const source = `${before}${safe(line.slice(start, end))}${end < line.length ? "…" : ""}`;
  const gutter = String(d.line);
  const pad = " ".repeat(gutter.length);
  const lead = `${before}${line.slice(start, column)}`.replace(/[^\t]/g, " ");
  return `${paint("dim", `${gutter} |`)} ${source}\n${paint("dim", `${pad} |`)} ${lead}${paint(severityStyle(d.severity), "^")}`;
}

// GitHub workflow commands: https://docs.github.com/actions/reference/workflow-commands-for-github-actions
function escapeData(text: string): string {
  return text.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}

function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, "%3A").replace(/,/g, "%2C");
}

function formatGithub(d: Diagnostic): string {
  const props = [`file=${escapeProperty(d.file)}`, `line=${d.line}`, `col=${d.column}`, `title=${escapeProperty(d.code)}`].join(",");
  return `::${d.severity} ${props}::${escapeData(d.message)}`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** `2 errors, 1 warning`; `no problems` when empty. */
export function summariseDiagnostics(diagnostics: readonly Diagnostic[]): string {
  const errors = diagnostics.filter((d) => d.severity === "error").length;
  const warnings = diagnostics.length - errors;
  const parts = [errors > 0 ? plural(errors, "error") : "", warnings > 0 ? plural(warnings, "warning") : ""].filter((p) => p !== "");
  return parts.length === 0 ? "no problems" : parts.join(", ");
}
