import { compileValidator, escapeToken } from "../component/index.js";
import { ManifoldError, type ErrorDetail } from "../errors/index.js";
import { parseDuration } from "../spec/index.js";
import { taskInputSchema } from "../spec/index.js";
import type { ComponentSpec, TaskTypeSpec } from "../spec/index.js";
import { integerFromEnv } from "../util/index.js";

/** A task's timeout when neither the request nor its task type gives one. */
export const DEFAULT_TASK_TIMEOUT_MS = 30 * 60_000;
/** The longest timeout a request may ask for; a finished record is kept 24 h, so longer makes no sense. */
export const MAX_TASK_TIMEOUT_MS = 24 * 60 * 60_000;

/** The framework's keys of the submit body; `input` is the handler's and is checked against its type's schema. */
const BODY_KEYS = new Set(["type", "input", "timeout"]);
/** Unknown types are named back in the message, cut short: the text came from the caller. */
const MAX_ECHO = 64;

export interface Submission {
  readonly taskType: TaskTypeSpec;
  readonly input: Record<string, unknown>;
  readonly timeoutMs: number;
}

type InputCheck = (input: unknown) => readonly ErrorDetail[] | undefined;

export interface SubmitParser {
  /** Checks a submit body: INVALID_INPUT, UNKNOWN_TASK_TYPE or INVALID_TIMEOUT, in that order. */
  parse(body: Record<string, unknown>): Submission;
  /** Task types by their wire name. */
  readonly types: ReadonlyMap<string, TaskTypeSpec>;
}

function echo(text: string): string {
  return JSON.stringify(text.length > MAX_ECHO ? `${text.slice(0, MAX_ECHO)}…` : text);
}

/** One compiled input schema per task type, built once with the app. */
/** The largest task input unless told otherwise: the embedded store holds every queued input in memory. */
export const DEFAULT_MAX_INPUT_BYTES = 256 * 1024;
export const MAX_INPUT_BYTES_ENV = "MANIFOLD_TASK_MAX_INPUT_BYTES";

/** `MANIFOLD_TASK_MAX_INPUT_BYTES`: a positive integer of bytes; unset or empty is 256 KiB. */
export function readMaxInputBytes(env: Readonly<Record<string, string | undefined>> = process.env): number {
  return integerFromEnv(env, MAX_INPUT_BYTES_ENV, DEFAULT_MAX_INPUT_BYTES, { min: 1 });
}

export function createSubmitParser(
  spec: ComponentSpec,
  { maxTimeoutMs = MAX_TASK_TIMEOUT_MS, maxInputBytes = DEFAULT_MAX_INPUT_BYTES }: { readonly maxTimeoutMs?: number; readonly maxInputBytes?: number } = {},
): SubmitParser {
  const agent = spec.agent;
  const types = new Map((agent?.tasks ?? []).map((t) => [t.type, t]));
  const checks = new Map<string, InputCheck>();
  for (const taskType of types.values()) {
    checks.set(taskType.type, compileValidator(agent === undefined ? { type: "object" } : taskInputSchema(agent, taskType, "draft-07"), { prefix: "/input" }));
  }
  const known = [...types.keys()].sort().join(", ");

  const parse = (body: Record<string, unknown>): Submission => {
    const details: ErrorDetail[] = [];
    for (const key of Object.keys(body)) {
      if (!BODY_KEYS.has(key)) details.push({ pointer: `/${escapeToken(key)}`, message: "is not an allowed property (type, input, timeout)" });
    }
    const { type, input = {}, timeout } = body;
    if (type === undefined) details.push({ pointer: "/type", message: "is required" });
    else if (typeof type !== "string") details.push({ pointer: "/type", message: "must be string" });
    if (typeof input !== "object" || input === null || Array.isArray(input)) details.push({ pointer: "/input", message: "must be object" });
    if (details.length > 0) throw new ManifoldError("INVALID_INPUT", "the task request does not match {type, input, timeout?}", { details });
    const bytes = Buffer.byteLength(JSON.stringify(input));
    if (bytes > maxInputBytes) {
      throw new ManifoldError("PAYLOAD_TOO_LARGE", `a task input may take ${maxInputBytes} bytes as JSON (${MAX_INPUT_BYTES_ENV}); this one takes ${bytes}`, {
        details: [{ pointer: "/input", message: `is ${bytes} bytes; the limit is ${maxInputBytes}` }],
      });
    }

    const taskType = types.get(type as string);
    if (taskType === undefined) {
      throw new ManifoldError(
        "UNKNOWN_TASK_TYPE",
        `${echo(type as string)} is not a task type of ${spec.name}${known === "" ? " (it has none)" : `; known: ${known}`}`,
        {
          details: [{ pointer: "/type", message: "unknown task type" }],
        },
      );
    }

    let timeoutMs = taskType.timeoutMs ?? DEFAULT_TASK_TIMEOUT_MS;
    if (timeout !== undefined) {
      const parsed = typeof timeout === "string" ? parseDuration(timeout) : undefined;
      if (parsed === undefined) {
        throw new ManifoldError("INVALID_TIMEOUT", 'timeout must be a duration such as "90s", "10m" or "2h"', {
          details: [{ pointer: "/timeout", message: "is not a duration" }],
        });
      }
      if (parsed > maxTimeoutMs) {
        throw new ManifoldError("INVALID_TIMEOUT", `timeout must be at most ${maxTimeoutMs / 60_000} minutes`, {
          details: [{ pointer: "/timeout", message: "is too long" }],
        });
      }
      timeoutMs = parsed;
    }

    const problems = checks.get(taskType.type)?.(input);
    if (problems !== undefined)
      throw new ManifoldError("INVALID_INPUT", `input of task type ${taskType.type} does not match its schema`, { details: problems });
    return { taskType, input: input as Record<string, unknown>, timeoutMs };
  };

  return { parse, types };
}
