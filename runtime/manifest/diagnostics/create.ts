import type { Diagnostic } from "../project.js";
import { DIAGNOSTIC_CODES, type DiagnosticCode } from "../codes.js";

/** 1-based line and column. */
export interface Position {
  readonly line: number;
  readonly column: number;
}

export const START: Position = { line: 1, column: 1 };

/** The severity comes from the code table, so a code can never be reported at two severities. */
export function createDiagnostic(code: DiagnosticCode, file: string, position: Position, message: string): Diagnostic {
  return { file, line: position.line, column: position.column, severity: DIAGNOSTIC_CODES[code].severity, code, message };
}

// Code-unit comparison, not localeCompare: the order must not depend on the machine's locale.
function compare(a: string | number, b: string | number): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function compareDiagnostics(a: Diagnostic, b: Diagnostic): number {
  return compare(a.file, b.file) || compare(a.line, b.line) || compare(a.column, b.column) || compare(a.code, b.code) || compare(a.message, b.message);
}

/** Sorted by file, line, column; exact repeats dropped. */
export function sortDiagnostics(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  const sorted = [...diagnostics].sort(compareDiagnostics);
  return sorted.filter((d, i) => i === 0 || compareDiagnostics(d, sorted[i - 1]!) !== 0);
}
