/**
 * One capability of a `kind: a2a` component as a function: a message naming the remote skill
 * (`metadata.skill`) with the input as its data part (or, for a text-in skill, the `text` field as a
 * text part), the task followed to its end (follow.ts), and its end turned into the capability's
 * output or a ManifoldError a workflow's recovery can read:
 *
 * - completed: the artifact's data part, checked against the output fields when the capability has
 *   them (extra properties allowed: the remote agent's schema is its own), else (or when the output is
 *   just `text`) `{ text }`;
 * - failed: the remote error code when it is one of ours, else HANDLER_ERROR with the remote text;
 * - input-required: HANDLER_ERROR naming the remote task and checkpoint (details `/task_id`,
 *   `/checkpoint_id`): the remote task stays waiting for a human on the remote agent;
 * - canceled or rejected by the remote agent: HANDLER_ERROR; auth-required: UNAUTHORIZED.
 */
import { randomUUID } from "node:crypto";
import type { Message, Part } from "@a2a-js/sdk";
import { compileSchemaCheck, type SchemaCheck } from "../mcp/index.js";
import { isErrorCode, ManifoldError, type ErrorDetail } from "../errors/index.js";
import { objectSchema, type CapabilitySpec, type FieldsSpec } from "../spec/index.js";
import type { Clock } from "../util/index.js";
import type { A2aAgent } from "./agent-pool.js";
import { followTask, STATE, type Followed } from "./follow.js";

/** A remote error's or answer's text as a message: at most this long. */
const MAX_MESSAGE_TEXT = 1000;
/** Text of one result, all parts together: more is refused. */
export const MAX_RESULT_TEXT = 4 * 1024 * 1024;

export type A2aSkillCall = (input: unknown, options?: { readonly signal?: AbortSignal; readonly timeoutMs?: number }) => Promise<unknown>;

export interface A2aSkillCallOptions {
  readonly component: string;
  readonly capability: CapabilitySpec;
  readonly agent: () => A2aAgent;
  readonly defaultTimeoutMs: number;
  readonly clock: Clock;
  /** Between GetTask polls when a stream ended early. */
  readonly pollMs: number;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** Fields that are exactly one `text` string: such a skill takes a text part (as a chat message would), or answers `{ text }`. */
function isTextOnly(fields: FieldsSpec | undefined): boolean {
  const all = fields === undefined ? [] : [...fields.required, ...fields.optional];
  return all.length === 1 && all[0]!.name === "text" && all[0]!.type === "string";
}

const textPart = (text: string): Part => ({ content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "text/plain" });
const dataPart = (data: unknown): Part => ({ content: { $case: "data", value: data }, metadata: undefined, filename: "", mediaType: "application/json" });

function messageOf(skill: string, input: Record<string, unknown>, textIn: boolean): Message {
  const parts = textIn && typeof input["text"] === "string" ? [textPart(input["text"])] : [dataPart(input)];
  return { messageId: randomUUID(), contextId: "", taskId: "", role: 1, parts, metadata: { skill }, extensions: [], referenceTaskIds: [] };
}

/** Drops `additionalProperties: false` at every depth: declared fields are checked, extra ones pass. */
function tolerant(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(tolerant);
  if (!isRecord(schema)) return schema;
  return Object.fromEntries(
    Object.entries(schema).flatMap(([key, value]) => (key === "additionalProperties" && value === false ? [] : [[key, tolerant(value)]])),
  );
}

function textOf(parts: readonly Part[]): string {
  return parts.flatMap((p) => (p.content?.$case === "text" ? [p.content.value] : [])).join("\n");
}

function statusText(known: Followed): string {
  return textOf(known.status?.parts ?? []).slice(0, MAX_MESSAGE_TEXT);
}

function failureOf(known: Followed, where: string): ManifoldError {
  const error = known.status?.metadata?.["error"];
  if (isRecord(error) && isErrorCode(error["code"]) && typeof error["message"] === "string")
    return new ManifoldError(error["code"], `${where}: ${error["message"].slice(0, MAX_MESSAGE_TEXT)}`);
  const text = statusText(known);
  return new ManifoldError("HANDLER_ERROR", text === "" ? `${where}: the remote task failed without a message` : `${where}: ${text}`);
}

function waitingOf(known: Followed, where: string): ManifoldError {
  const checkpoint = known.status?.metadata?.["checkpoint_id"];
  const details: ErrorDetail[] = [{ pointer: "/task_id", message: String(known.taskId) }];
  if (typeof checkpoint === "string") details.push({ pointer: "/checkpoint_id", message: checkpoint });
  const at = typeof checkpoint === "string" ? ` at checkpoint ${checkpoint}` : "";
  return new ManifoldError("HANDLER_ERROR", `${where}: the remote task ${known.taskId} waits for input${at}; answer it on the remote agent`, { details });
}

function outputOf(known: Followed, where: string, check: SchemaCheck | undefined): unknown {
  switch (known.state) {
    case STATE.completed:
      break;
    case STATE.failed:
      throw failureOf(known, where);
    case STATE.inputRequired:
      throw waitingOf(known, where);
    case STATE.authRequired:
      throw new ManifoldError("UNAUTHORIZED", `${where}: the remote agent asks for other credentials`);
    default:
      throw new ManifoldError("HANDLER_ERROR", `${where}: the remote agent ${known.state === STATE.canceled ? "canceled" : "rejected"} the task`);
  }
  const text = textOf(known.parts);
  if (text.length > MAX_RESULT_TEXT) throw new ManifoldError("INVALID_RESPONSE", `${where} answered more than ${MAX_RESULT_TEXT} characters of text`);
  const data = known.parts.find((p) => p.content?.$case === "data")?.content?.value;
  if (check === undefined) return { text: text !== "" ? text : data === undefined ? "" : JSON.stringify(data) };
  if (data === undefined) throw new ManifoldError("INVALID_RESPONSE", `${where} answered no data part, though its skill declares an output schema`);
  const details = check(data);
  if (details !== undefined) throw new ManifoldError("INVALID_RESPONSE", `${where} answered data that does not match its output schema`, { details });
  return data;
}

export function createA2aSkillCall({ component, capability, agent, defaultTimeoutMs, clock, pollMs }: A2aSkillCallOptions): A2aSkillCall {
  const skill = capability.a2aSkill;
  if (skill === undefined) throw new TypeError(`${component}.${capability.name} is not an A2A skill`);
  const where = `${component}.${capability.name}`;
  const textIn = isTextOnly(capability.input);
  // Compiled on the first call: a client that is never called never compiles.
  let checks: { input: SchemaCheck | undefined; output: SchemaCheck | undefined } | undefined;
  return async (input, { signal, timeoutMs = defaultTimeoutMs } = {}) => {
    checks ??= {
      input: capability.input === undefined ? undefined : compileSchemaCheck(objectSchema(capability.input, "draft-07") as Record<string, unknown>),
      output:
        capability.output === undefined || isTextOnly(capability.output)
          ? undefined
          : compileSchemaCheck(tolerant(objectSchema(capability.output, "draft-07")) as Record<string, unknown>),
    };
    if (!isRecord(input))
      throw new ManifoldError("INVALID_INPUT", `input of ${where} must be an object`, { details: [{ pointer: "", message: "must be object" }] });
    const details = checks.input?.(input);
    if (details !== undefined) throw new ManifoldError("INVALID_INPUT", `input of ${where} does not match its schema`, { details });
    const remote = agent();
    const client = await remote.client();
    const known = await followTask(client, messageOf(skill.id, input, textIn), { where, signal, closing: remote.closing, timeoutMs, clock, pollMs });
    return outputOf(known, where, checks.output);
  };
}
