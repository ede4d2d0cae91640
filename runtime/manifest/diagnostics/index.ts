export { DIAGNOSTIC_CODES, isDiagnosticCode, type DiagnosticCode, type DiagnosticCodeInfo } from "../codes.js";
export { START, compareDiagnostics, createDiagnostic, sortDiagnostics, type Position } from "./create.js";
export { formatDiagnostics, summariseDiagnostics, type DiagnosticFormat, type FormatOptions } from "./format.js";
export { SECRET_NAME } from "./mask.js";
