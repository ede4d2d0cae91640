/**
 * What both adapters share: ids, the checks a checkpoint passes before a store holds it, the list
 * order key, and the errors of a refused command, so memory and Redis answer alike.
 */
import { randomBytes } from "node:crypto";
import { ManifoldError } from "../../errors/index.js";
import {
  CHECKPOINT_STATUSES,
  DEFAULT_LIST_LIMIT,
  MAX_EXPIRE_LIMIT,
  MAX_LIST_LIMIT,
  MAX_REASON,
  type Checkpoint,
  type CheckpointAction,
  type CheckpointEvent,
  type CheckpointListOptions,
  type CheckpointResolution,
  type CheckpointStatus,
  type DefaultAction,
  type NewCheckpoint,
  type ReleaseOptions,
} from "./types.js";

const CHECKPOINT_ID = /^cp-[0-9a-f]{32}$/;
/** A list cursor is the list order key of the last checkpoint of a page. */
const CURSOR = /^\d{15}:cp-[0-9a-f]{32}$/;

/** `cp-` and 32 hex digits from the system's random source. */
export function newCheckpointId(): string {
  return `cp-${randomBytes(16).toString("hex")}`;
}

export function isCheckpointId(value: unknown): value is string {
  return typeof value === "string" && CHECKPOINT_ID.test(value);
}

/**
 * The order `list` pages in, as one string: created ms (15 digits) then the id. On Redis it is the
 * member of lexicographic sorted sets, so a cursor resumes exactly after a checkpoint, ties included.
 */
export function listMember(createdMs: number, checkpointId: string): string {
  return `${String(createdMs).padStart(15, "0")}:${checkpointId}`;
}

export const idOfMember = (member: string): string => member.slice(16);

/** A new checkpoint as the adapters hold it: the immutable part as JSON text and its index keys. */
export interface EncodedCheckpoint {
  readonly checkpoint_id: string;
  readonly body: string;
  readonly createdMs: number;
  readonly expiresMs: number;
  readonly defaultAction: DefaultAction;
  readonly member: string;
}

const TYPES: readonly string[] = ["plan", "step", "error"];
const MODES: readonly string[] = ["streaming", "non_streaming"];
const DEFAULTS: readonly string[] = ["approve", "reject"];

function instant(name: string, value: unknown): number {
  const ms = typeof value === "string" ? Date.parse(value) : Number.NaN;
  if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`${name} must be an ISO 8601 time after 1970, not ${JSON.stringify(String(value).slice(0, 40))}`);
  return ms;
}

/**
 * The runtime mints checkpoints, so a malformed one is a programming error (RangeError, naming the
 * field); one whose JSON passes the size limit comes from a large request and is PAYLOAD_TOO_LARGE.
 * Status and decision fields a caller left on the object are dropped: a checkpoint starts pending.
 */
export function encodeCheckpoint(checkpoint: NewCheckpoint, maxRecordBytes: number): EncodedCheckpoint {
  const { status: _s, resolution: _r, resumed_at: _a, attempts: _n, ...fixed } = checkpoint as Checkpoint;
  if (!isCheckpointId(fixed.checkpoint_id))
    throw new RangeError(`checkpoint ids are cp- and 32 hex digits, not ${JSON.stringify(String(fixed.checkpoint_id).slice(0, 40))}`);
  if (!TYPES.includes(fixed.type)) throw new RangeError(`checkpoint type must be plan, step or error, not ${JSON.stringify(fixed.type)}`);
  if (!MODES.includes(fixed.request_mode)) throw new RangeError(`request_mode must be streaming or non_streaming, not ${JSON.stringify(fixed.request_mode)}`);
  if (!DEFAULTS.includes(fixed.default_action)) throw new RangeError(`default_action must be approve or reject, not ${JSON.stringify(fixed.default_action)}`);
  if (typeof fixed.agent_name !== "string" || fixed.agent_name === "") throw new RangeError("agent_name must be a non-empty string");
  const createdMs = instant("created_at", fixed.created_at);
  const expiresMs = instant("expires_at", fixed.expires_at);
  let body: string;
  try {
    body = JSON.stringify(fixed);
  } catch (error) {
    throw new RangeError(`checkpoint ${fixed.checkpoint_id} is not JSON (${(error as Error).message})`);
  }
  const size = Buffer.byteLength(body);
  if (size > maxRecordBytes) {
    throw new ManifoldError(
      "PAYLOAD_TOO_LARGE",
      `checkpoint ${fixed.checkpoint_id} is ${size} bytes of JSON; a checkpoint holds at most ${maxRecordBytes} (its plan, original request and completed steps together)`,
    );
  }
  return {
    checkpoint_id: fixed.checkpoint_id,
    body,
    createdMs,
    expiresMs,
    defaultAction: fixed.default_action,
    member: listMember(createdMs, fixed.checkpoint_id),
  };
}

/** The stored parts back into the wire record. Each call parses afresh: callers get copies, as from Redis. */
export function decodeCheckpoint(
  body: string,
  status: string,
  resolution: string | undefined,
  resumedAt: string | undefined,
  attempts?: string | number | undefined,
): Checkpoint {
  const tries = Number(attempts ?? 0);
  return {
    ...(JSON.parse(body) as NewCheckpoint),
    status: status as CheckpointStatus,
    ...(resolution === undefined || resolution === "" ? {} : { resolution: JSON.parse(resolution) as CheckpointResolution }),
    ...(resumedAt === undefined || resumedAt === "" ? {} : { resumed_at: resumedAt }),
    ...(tries > 0 ? { attempts: tries } : {}),
  };
}

/** A release's options, checked: the runtime passes them, so a bad one is a RangeError. */
export function checkRelease({ attempts, now, maxAttempts }: ReleaseOptions): ReleaseOptions {
  checkNow(now);
  if (!Number.isSafeInteger(attempts) || attempts < 0) throw new RangeError(`attempts must be a whole number, not ${String(attempts)}`);
  if (!Number.isSafeInteger(maxAttempts) || maxAttempts < 1) throw new RangeError(`maxAttempts must be a positive whole number, not ${String(maxAttempts)}`);
  return { attempts, now, maxAttempts };
}

/** A release that lost its compare-and-set: the claim was released already, or the record moved. */
export function staleRelease(checkpointId: string, status: CheckpointStatus, attempts: number): ManifoldError {
  return new ManifoldError("CONFLICT", `checkpoint ${checkpointId} is ${status} after ${attempts} failed resumes: this claim was released already`, {
    details: [{ pointer: "/checkpoint_id", message: `the checkpoint is ${status}`, status, attempts }],
  });
}

export function checkNow(now: unknown): number {
  if (typeof now !== "number" || !Number.isSafeInteger(now) || now < 0) throw new RangeError(`now must be ms since the epoch, not ${String(now)}`);
  return now;
}

export function checkAction(action: unknown): CheckpointAction {
  if (action !== "approve" && action !== "reject") throw new RangeError(`action must be approve or reject, not ${JSON.stringify(action)}`);
  return action;
}

/** The resolution JSON a human's command writes. A reason is caller text: bounded, refused as INVALID_INPUT past it. */
export function commandResolution(action: CheckpointAction, reason: string | undefined, now: number, parameters?: Readonly<Record<string, unknown>>): string {
  if (reason !== undefined && typeof reason !== "string") throw new ManifoldError("INVALID_INPUT", "reason must be a string");
  if (reason !== undefined && reason.length > MAX_REASON) {
    throw new ManifoldError("INVALID_INPUT", `reason is ${reason.length} characters; at most ${MAX_REASON}`, {
      details: [{ pointer: "/reason", message: `at most ${MAX_REASON} characters` }],
    });
  }
  if (parameters !== undefined && (action !== "approve" || typeof parameters !== "object" || parameters === null || Array.isArray(parameters)))
    throw new ManifoldError("INVALID_INPUT", "parameters go with approve and must be an object", {
      details: [{ pointer: "/parameters", message: "must be an object, with action approve" }],
    });
  const resolution: CheckpointResolution = {
    action,
    ...(reason === undefined ? {} : { reason }),
    ...(parameters === undefined ? {} : { parameters }),
    at: new Date(now).toISOString(),
  };
  return JSON.stringify(resolution);
}

export function expiryResolution(now: number): string {
  const resolution: CheckpointResolution = { action: "expire", at: new Date(now).toISOString() };
  return JSON.stringify(resolution);
}

export function checkExpireLimit(limit: unknown): number {
  if (typeof limit !== "number" || !Number.isSafeInteger(limit) || limit < 1 || limit > MAX_EXPIRE_LIMIT)
    throw new RangeError(`limit must be an integer from 1 to ${MAX_EXPIRE_LIMIT}`);
  return limit;
}

export interface CheckedListOptions {
  readonly status?: CheckpointStatus;
  readonly type?: string;
  readonly agent_name?: string;
  readonly limit: number;
  readonly cursor?: string;
}

/** A bad limit or filter is the caller's code (RangeError); a cursor is opaque to callers, so a bad one is INVALID_INPUT. */
export function checkListOptions({ status, type, agent_name, limit = DEFAULT_LIST_LIMIT, cursor }: CheckpointListOptions = {}): CheckedListOptions {
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_LIST_LIMIT) throw new RangeError(`limit must be an integer from 1 to ${MAX_LIST_LIMIT}`);
  if (status !== undefined && !CHECKPOINT_STATUSES.includes(status)) throw new RangeError(`status must be one of ${CHECKPOINT_STATUSES.join(", ")}`);
  if (type !== undefined && !TYPES.includes(type)) throw new RangeError("type must be plan, step or error");
  if (cursor !== undefined && (typeof cursor !== "string" || !CURSOR.test(cursor)))
    throw new ManifoldError("INVALID_INPUT", "cursor is not one this store gave out", { details: [{ pointer: "/cursor", message: "not a list cursor" }] });
  return {
    limit,
    ...(status === undefined ? {} : { status }),
    ...(type === undefined ? {} : { type }),
    ...(agent_name === undefined ? {} : { agent_name }),
    ...(cursor === undefined ? {} : { cursor }),
  };
}

/** Whether a checkpoint passes the filters `list` applies after its index (type, agent, and the status a record has now). */
export function matches(checkpoint: Checkpoint, { status, type, agent_name }: CheckedListOptions): boolean {
  return (
    (status === undefined || checkpoint.status === status) &&
    (type === undefined || checkpoint.type === type) &&
    (agent_name === undefined || checkpoint.agent_name === agent_name)
  );
}

export function notFound(checkpointId: string): ManifoldError {
  return new ManifoldError("NOT_FOUND", `no checkpoint ${String(checkpointId).slice(0, 40)}`, {
    details: [{ pointer: "/checkpoint_id", message: "unknown, or past its retention" }],
  });
}

const DONE: Readonly<Record<CheckpointEvent, string>> = {
  approve: "approve",
  reject: "reject",
  expire_approve: "expire",
  expire_reject: "expire",
  resume: "resume",
  release: "release",
  fail: "fail",
};

/** A refused status change: 409 with the status the checkpoint has now (details[0].status). */
export function refused(checkpointId: string, status: CheckpointStatus, event: CheckpointEvent): ManifoldError {
  return new ManifoldError("CONFLICT", `checkpoint ${checkpointId} is ${status}: cannot ${DONE[event]} it`, {
    details: [{ pointer: event === "resume" ? "/checkpoint_id" : "/action", message: `the checkpoint is ${status}`, status }],
  });
}

/** A human's command after `expires_at`: the default action owns the checkpoint, even before the expiry processor ran. */
export function tooLate(checkpointId: string, status: CheckpointStatus, event: CheckpointEvent, expiresMs: number): ManifoldError {
  const expiresAt = new Date(expiresMs).toISOString();
  return new ManifoldError("CONFLICT", `checkpoint ${checkpointId} expired at ${expiresAt}: its default action applies; cannot ${DONE[event]} it`, {
    details: [{ pointer: "/action", message: `the checkpoint expired at ${expiresAt}`, status, expired: true, expires_at: expiresAt }],
  });
}
