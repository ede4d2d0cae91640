/**
 * What a language model is shown of a failed step: its code, status, message and the pointers and
 * messages of its details, never a stack trace, a cause or anything else the error object carries,
 * and never more than a fixed number of bytes. The recovery prompt uses it, and so may any prompt
 * that quotes a failure (a continuation plan): one projection, one bound, one event saying what was
 * left out (`failure_evidence.projected`).
 */
import { ERROR_CODES, type ErrorCode } from "../../errors/index.js";
import { cutUtf8 } from "../../llm/index.js";
import { llmEventScope, requestEvent } from "./run-context.js";

/** Most bytes of failure evidence a prompt quotes. */
export const FAILURE_EVIDENCE_LIMIT_BYTES = 4096;

const MESSAGE_BYTES = 1024;
const DETAIL_TEXT_BYTES = 256;
const MIN_LIMIT_BYTES = 256;

export interface ProjectedFailure {
  /** The evidence as JSON text (`{code, status?, message, details?}`), at most `effective_limit_bytes`. */
  readonly text: string;
  readonly effective_limit_bytes: number;
  /** The failure as it came (stack included), as JSON bytes. */
  readonly raw_bytes: number;
  readonly rendered_bytes: number;
  /** Parts left out: detail entries that did not fit, plus the message and detail texts that were cut. */
  readonly omitted: number;
}

interface Failure {
  readonly code: string;
  readonly status?: number;
  readonly message: string;
  readonly details: readonly { readonly pointer?: unknown; readonly message?: unknown }[];
  readonly stack?: string;
}

const bytes = (text: string): number => Buffer.byteLength(text, "utf8");
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null;

/** A ManifoldError, a step error `{code, message}`, a step result `{error: …}` or an error envelope `{error: …}`. */
function failureOf(value: unknown): Failure {
  let at: unknown = value;
  // A step result or an envelope holds the error one level down.
  if (isObject(at) && !("code" in at) && isObject(at["error"])) at = at["error"];
  if (!isObject(at)) return { code: "UNKNOWN", message: String(at ?? "unknown failure"), details: [] };
  const details = Array.isArray(at["details"]) ? (at["details"] as unknown[]).filter(isObject) : [];
  return {
    code: typeof at["code"] === "string" ? at["code"] : "UNKNOWN",
    ...(typeof at["status"] === "number" ? { status: at["status"] } : {}),
    // An unexposed error keeps its code only: its message may describe internals.
    message: at["expose"] === false ? "internal error" : typeof at["message"] === "string" ? at["message"] : "",
    details,
    ...(typeof at["stack"] === "string" ? { stack: at["stack"] } : {}),
  };
}

function cutText(value: unknown, maxBytes: number, counts: { omitted: number }): string {
  const { text, cut } = cutUtf8(typeof value === "string" ? value : value === undefined ? "" : String(value), maxBytes);
  if (!cut) return text;
  counts.omitted += 1;
  return `${text}…(cut)`;
}

/**
 * The failure as bounded evidence for a prompt, and `failure_evidence.projected` with its byte counts
 * on the request's span. `failure` is a ManifoldError, a step's error or a failed step result.
 */
export function projectFailure(failure: unknown, limitBytes: number = FAILURE_EVIDENCE_LIMIT_BYTES): ProjectedFailure {
  const limit = Math.max(MIN_LIMIT_BYTES, Math.floor(limitBytes));
  const raw = failureOf(failure);
  const raw_bytes = bytes(JSON.stringify(raw));
  const counts = { omitted: 0 };
  const head = {
    code: raw.code,
    ...(raw.status === undefined ? {} : { status: raw.status }),
    message: cutText(raw.message, MESSAGE_BYTES, counts),
  };
  const details: { pointer: string; message: string }[] = [];
  let text = JSON.stringify(head);
  for (const [i, detail] of raw.details.entries()) {
    const next = [...details, { pointer: cutText(detail.pointer, DETAIL_TEXT_BYTES, counts), message: cutText(detail.message, DETAIL_TEXT_BYTES, counts) }];
    const candidate = JSON.stringify({ ...head, details: next, ...(i + 1 < raw.details.length ? { details_omitted: raw.details.length - i - 1 } : {}) });
    if (bytes(candidate) > limit) break;
    details.push(next[next.length - 1]!);
    text = candidate;
  }
  const left = raw.details.length - details.length;
  counts.omitted += left;
  if (left > 0) text = JSON.stringify({ ...head, ...(details.length === 0 ? {} : { details }), details_omitted: left });
  // A message near the limit on its own: the last resort is a cut of the text.
  if (bytes(text) > limit) {
    text = cutUtf8(text, limit - 8).text + "…(cut)";
    counts.omitted += 1;
  }
  const projected: ProjectedFailure = { text, effective_limit_bytes: limit, raw_bytes, rendered_bytes: bytes(text), omitted: counts.omitted };
  requestEvent("failure_evidence.projected", {
    ...llmEventScope(),
    effective_limit_bytes: limit,
    raw_bytes,
    rendered_bytes: projected.rendered_bytes,
    omitted: projected.omitted,
  });
  return projected;
}

/** A step whose failure policy hides its failures from the model: `failure_evidence.policy_omitted`. */
export function reportPolicyOmitted(stepId: string, attempt: number): void {
  requestEvent("failure_evidence.policy_omitted", { ...llmEventScope(), step_id: stepId, attempt });
}

/** Codes a changed input or another plan cannot fix, or that another feature owns (approval), or that mean the run stopped. */
const NOT_CLIENT_FAILURES: ReadonlySet<string> = new Set(["ABORTED", "APPROVAL_REQUIRED", "UNAUTHORIZED", "FORBIDDEN"]);

/**
 * A failure the tool answered about its input (4xx), which a corrected input (recovery) or another
 * plan (remediation) may mend; an outage, a timeout or an abort is not one. `status` defaults to the
 * code's (a step result keeps only the code).
 */
export function isClientFailure({ code, status }: { readonly code: string; readonly status?: number }): boolean {
  if (NOT_CLIENT_FAILURES.has(code)) return false;
  const effective = status ?? ERROR_CODES[code as ErrorCode]?.status ?? 500;
  return effective >= 400 && effective < 500;
}
