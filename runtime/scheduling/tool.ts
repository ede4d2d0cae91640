/**
 * The scheduler tool's five capabilities over a schedule store. The caller is the agent whose runs
 * these are: `target_agent` is always the caller's proven agent identity (the agent token every
 * agent's outbound caller sends when the network has a key; `X-Manifold-Agent-Name` only behind a
 * trusted gateway), never a body field or a bare header, so an agent cannot schedule work onto
 * another, nor see, change or cancel another's schedules.
 */
import { randomBytes } from "node:crypto";
import { ManifoldError } from "../errors/index.js";
import { callerIdentity } from "../context/index.js";
import { isDnsLabel } from "../spec/index.js";
import { isScheduleId, MAX_LIST_LIMIT, type ScheduleRecord, type ScheduleStore } from "./store/index.js";
import { readTiming, type TimingFields } from "./timing.js";

type Body = Readonly<Record<string, unknown>>;

export interface SchedulerToolOptions {
  readonly schedules: ScheduleStore;
  /** Told when a schedule was created or moved, so the firing loop can wake for it. */
  readonly changed?: () => void;
  /**
   * Whether an agent of that name is registered; `false` refuses the schedule at once (404) instead of
   * dead-lettering it when it first fires. Absent (no registry): not checked.
   */
  readonly agentKnown?: (name: string) => Promise<boolean>;
  /** @defaultValue Date.now */
  readonly now?: () => number;
}

/** Handlers by capability key, as `serveComponent` takes them. */
export interface SchedulerHandlers {
  scheduleTask(input: Body): Promise<ScheduleRecord>;
  listSchedules(input: Body): Promise<{ schedules: ScheduleRecord[] }>;
  getSchedule(input: Body): Promise<ScheduleRecord>;
  updateSchedule(input: Body): Promise<ScheduleRecord>;
  cancelSchedule(input: Body): Promise<{ schedule_id: string; cancelled: true }>;
}

/** A schedule's instruction and input together, as JSON: what one schedule may make the store hold. */
export const MAX_SCHEDULE_BYTES = 64 * 1024;

/** The calling agent, as proven; any other caller (a user, nobody) is 401: schedules belong to agents. */
function callerAgent(): string {
  const { kind, subject } = callerIdentity();
  if (kind !== "agent" || !isDnsLabel(subject)) {
    throw new ManifoldError(
      "UNAUTHORIZED",
      "schedules belong to the calling agent, which must prove its name: an agent token (MANIFOLD_REGISTRY_KEY set on the agent and the scheduler), or X-Manifold-Agent-Name behind a trusted gateway (MANIFOLD_TRUST_IDENTITY_HEADERS=true)",
    );
  }
  return subject;
}

function scheduleIdOf(input: Body): string {
  const id = input["schedule_id"];
  if (!isScheduleId(id)) throw new ManifoldError("NOT_FOUND", `no schedule ${typeof id === "string" ? id.slice(0, 40) : ""}`);
  return id;
}

const found = async (schedules: ScheduleStore, id: string): Promise<ScheduleRecord> => {
  const record = await schedules.get(id);
  if (record === undefined) throw new ManifoldError("NOT_FOUND", `no schedule ${id}`);
  return record;
};

/** `instruction` as given, else `input.instruction` (the spec's input "usually with instruction"), else empty. */
function instructionOf(input: Body, fallback = ""): string {
  const given = input["instruction"];
  if (typeof given === "string") return given;
  const inner = (input["input"] as Body | undefined)?.["instruction"];
  return typeof inner === "string" ? inner : fallback;
}

/** An agent may see and change only its own schedules; another agent gets the same 404 as a missing id. */
function checkOwner(record: ScheduleRecord, agent: string): void {
  if (agent !== record.target_agent) throw new ManifoldError("NOT_FOUND", `no schedule ${record.schedule_id}`);
}

/** What the capabilities work with. */
interface Tool {
  readonly schedules: ScheduleStore;
  readonly changed: () => void;
  readonly now: () => number;
  readonly agentKnown: ((name: string) => Promise<boolean>) | undefined;
}

async function scheduleTask({ schedules, changed, now, agentKnown }: Tool, input: Body): Promise<ScheduleRecord> {
  const target = callerAgent();
  const at = now();
  const timing = readTiming(input, at);
  if (agentKnown !== undefined && !(await agentKnown(target))) {
    throw new ManifoldError(
      "NOT_FOUND",
      `no agent named ${target} is registered, so the schedule could never run: serve the agent with the same store settings as the scheduler (REDIS_URL / MANIFOLD_REDIS_*)`,
    );
  }
  const { firstMs, recurring, ...fields } = timing;
  const stamp = new Date(at).toISOString();
  const record: ScheduleRecord = {
    schedule_id: `sch-${randomBytes(8).toString("hex")}`,
    target_agent: target,
    instruction: instructionOf(input),
    input: (input["input"] as Body | undefined) ?? {},
    ...fields,
    recurring,
    next_run_at: new Date(firstMs).toISOString(),
    fire_count: 0,
    created_at: stamp,
    updated_at: stamp,
  };
  checkSize(record);
  await schedules.create(record);
  changed();
  return record;
}

/** `limit` and `offset` as the caller sent them: a bad one is INVALID_INPUT at its pointer (the store would throw a RangeError). */
export function listPage(input: Body): { limit: number; offset: number } {
  const limit = input["limit"] ?? 50;
  const offset = input["offset"] ?? 0;
  if (!Number.isSafeInteger(limit) || (limit as number) < 1 || (limit as number) > MAX_LIST_LIMIT)
    throw new ManifoldError("INVALID_INPUT", `limit must be 1 to ${MAX_LIST_LIMIT}`, {
      details: [{ pointer: "/limit", message: `must be an integer from 1 to ${MAX_LIST_LIMIT}` }],
    });
  if (!Number.isSafeInteger(offset) || (offset as number) < 0)
    throw new ManifoldError("INVALID_INPUT", "offset must be 0 or more", { details: [{ pointer: "/offset", message: "must be a non-negative integer" }] });
  return { limit: limit as number, offset: offset as number };
}

/** The calling agent's own schedules only; a caller that is no proven agent is 401, never "all". */
async function listSchedules({ schedules }: Tool, input: Body): Promise<{ schedules: ScheduleRecord[] }> {
  const agent = callerAgent();
  const page = listPage(input);
  return { schedules: await schedules.list({ ...page, target_agent: agent }) };
}

/**
 * The updated record: the changed fields over the current one, its fire state kept. New timing
 * re-times it; a new zone alone re-times the current cron expression (and is refused for the other
 * forms); `retime` says whether the due index moves.
 */
export function updatedRecord(current: ScheduleRecord, input: Body, at: number): { record: ScheduleRecord; retime: boolean } {
  const retimed = ["delay", "run_at", "cron_expr"].some((key) => input[key] !== undefined);
  const base: ScheduleRecord = {
    schedule_id: current.schedule_id,
    target_agent: current.target_agent,
    instruction: input["instruction"] === undefined ? current.instruction : instructionOf(input, current.instruction),
    input: (input["input"] as Body | undefined) ?? current.input,
    recurring: current.recurring,
    next_run_at: current.next_run_at,
    fire_count: current.fire_count,
    ...(current.last_fired_at === undefined ? {} : { last_fired_at: current.last_fired_at }),
    created_at: current.created_at,
    updated_at: new Date(at).toISOString(),
  };
  const { timezone: _zone, ...currentTiming } = timingOf(current);
  const timing = retimed ? input : input["timezone"] !== undefined ? { ...currentTiming, timezone: input["timezone"] } : undefined;
  if (timing === undefined) return { record: { ...base, ...timingOf(current) }, retime: false };
  const { firstMs, recurring, ...fields } = readTiming(timing, at);
  return { record: { ...base, ...fields, recurring, next_run_at: new Date(firstMs).toISOString() }, retime: true };
}

async function updateSchedule({ schedules, changed, now }: Tool, input: Body): Promise<ScheduleRecord> {
  // The caller first: no identity is 401 before an unknown id is 404.
  const agent = callerAgent();
  const current = await found(schedules, scheduleIdOf(input));
  checkOwner(current, agent);
  const { record, retime } = updatedRecord(current, input, now());
  checkSize(record);
  if (!(await schedules.update(record, { retime }))) throw new ManifoldError("NOT_FOUND", `no schedule ${record.schedule_id}`);
  changed();
  return record;
}

async function cancelSchedule({ schedules }: Tool, input: Body): Promise<{ schedule_id: string; cancelled: true }> {
  const agent = callerAgent();
  const id = scheduleIdOf(input);
  const current = await found(schedules, id);
  checkOwner(current, agent);
  if (!(await schedules.delete(id))) throw new ManifoldError("NOT_FOUND", `no schedule ${id}`);
  return { schedule_id: id, cancelled: true };
}

export function createSchedulerHandlers({ schedules, changed = () => undefined, now = Date.now, agentKnown }: SchedulerToolOptions): SchedulerHandlers {
  const tool: Tool = { schedules, changed, now, agentKnown };
  return {
    scheduleTask: (input) => scheduleTask(tool, input),
    listSchedules: (input) => listSchedules(tool, input),
    async getSchedule(input) {
      const agent = callerAgent();
      const record = await found(schedules, scheduleIdOf(input));
      checkOwner(record, agent);
      return record;
    },
    updateSchedule: (input) => updateSchedule(tool, input),
    cancelSchedule: (input) => cancelSchedule(tool, input),
  };
}

function checkSize(record: ScheduleRecord): void {
  const bytes = Buffer.byteLength(JSON.stringify([record.instruction, record.input]));
  if (bytes > MAX_SCHEDULE_BYTES)
    throw new ManifoldError("PAYLOAD_TOO_LARGE", `a schedule's instruction and input may take ${MAX_SCHEDULE_BYTES} bytes as JSON; this one takes ${bytes}`);
}

function timingOf(record: ScheduleRecord): TimingFields {
  const { delay, run_at, cron_expr, timezone } = record;
  return {
    ...(delay === undefined ? {} : { delay }),
    ...(run_at === undefined ? {} : { run_at }),
    ...(cron_expr === undefined ? {} : { cron_expr }),
    ...(timezone === undefined ? {} : { timezone }),
  };
}
