/**
 * The SDK's `AgentExecutor` for a Manifold agent. A message names its skill in `metadata.skill`
 * (natural mode when it names none); a workflow or capability takes its input from the message's
 * first data part, natural mode its text. The skill's route answers; the task then ends:
 *
 * - completed, with one artifact whose data part is the route's body (a workflow's `outputs` are typed
 *   by its output schema) and whose text part is the answer's prose (or its JSON);
 * - input-required when a step waits for a human (`metadata.checkpoint_id`) or the model asks a
 *   question. A later message on the same task continues it: a data part `{action: "approve" |
 *   "reject", reason?}` decides the checkpoint first (`/hitl/command`), then an approved one resumes
 *   (`/hitl/resume/<id>`); a bare message resumes a checkpoint decided elsewhere;
 * - failed with the route's error code and message (never a stack), or canceled by `CancelTask`.
 */
import { randomUUID } from "node:crypto";
import type { Message, Part, Task, TaskArtifactUpdateEvent, TaskState, TaskStatusUpdateEvent } from "@a2a-js/sdk";
import type { AgentExecutionEvent, AgentExecutor, ExecutionEventBus, RequestContext } from "@a2a-js/sdk/server";
import { NATURAL_SKILL, type SkillTarget } from "./card.js";
import { runChatTurn, type FinishedStep } from "./chat-turn.js";
import type { CarriedHeaders, RouteAnswer, SelfCaller } from "./self-call.js";

// The SDK's enums are runtime values; the numbers are the protocol's and fixed, so the type alone is imported.
const STATE = { submitted: 1, working: 2, completed: 3, failed: 4, canceled: 5, inputRequired: 6, rejected: 7 } as const satisfies Record<string, TaskState>;
const ROLE_AGENT = 2;

export interface ExecutorDeps {
  readonly targets: ReadonlyMap<string, SkillTarget>;
  readonly caller: SelfCaller;
  /** Natural mode runs on the chat session of the message's `contextId` (the agent has chat). */
  readonly chat?: boolean;
  /** Wraps an event for the bus (the SDK's `AgentEvent`, loaded with it). */
  readonly event: {
    task(task: Task): AgentExecutionEvent;
    statusUpdate(update: TaskStatusUpdateEvent): AgentExecutionEvent;
    artifactUpdate(update: TaskArtifactUpdateEvent): AgentExecutionEvent;
  };
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

const textPart = (text: string): Part => ({ content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "text/plain" });
const dataPart = (data: unknown): Part => ({ content: { $case: "data", value: data }, metadata: undefined, filename: "", mediaType: "application/json" });

function agentMessage(taskId: string, contextId: string, parts: Part[], metadata?: Record<string, unknown>): Message {
  return { messageId: randomUUID(), taskId, contextId, role: ROLE_AGENT, parts, metadata, extensions: [], referenceTaskIds: [] };
}

/** The carried headers the route put in the call's state (extension.ts). */
export const HEADERS_STATE = "manifold.a2a.headers";

/** What a message asks: its skill id, its text, and its first data part's object. */
export function readMessage(message: Message): { skill: string | undefined; text: string; data: Record<string, unknown> | undefined } {
  const skill = message.metadata?.["skill"];
  const texts: string[] = [];
  let data: Record<string, unknown> | undefined;
  for (const { content } of message.parts) {
    if (content?.$case === "text") texts.push(content.value);
    else if (content?.$case === "data" && data === undefined && isRecord(content.value)) data = content.value;
  }
  return { skill: typeof skill === "string" ? skill : undefined, text: texts.join("\n"), data };
}

/** The route call a skill makes for a message. */
function routeOf(target: SkillTarget, text: string, data: Record<string, unknown> | undefined): { path: string; body: unknown } {
  switch (target.kind) {
    case "natural":
      return { path: "/orchestrate/natural", body: { request: text } };
    case "workflow":
      return { path: `/orchestrate/${target.workflow.name}`, body: data ?? {} };
    case "capability":
      return { path: target.capability.endpoint, body: data ?? {} };
  }
}

interface Outcome {
  readonly state: TaskState;
  readonly message?: Message;
  readonly artifact?: { parts: Part[]; name: string };
}

/** A route's answer as the task's end: an error envelope fails it, a pause asks for input, else the artifact. */
export function outcomeOf(answer: RouteAnswer, ids: { taskId: string; contextId: string }, skill: string): Outcome {
  const { status, body } = answer;
  const say = (text: string, metadata?: Record<string, unknown>): Message => agentMessage(ids.taskId, ids.contextId, [textPart(text)], metadata);
  if (status >= 400 || !isRecord(body)) {
    const error = isRecord(body) && isRecord(body["error"]) ? body["error"] : { code: "INTERNAL", message: `the skill answered ${status}` };
    const summary = { code: String(error["code"]), message: String(error["message"]) };
    return { state: STATE.failed, message: say(`${summary.code}: ${summary.message}`, { error: summary }) };
  }
  if (body["status"] === "interrupted" && typeof body["checkpoint_id"] === "string") {
    const id = body["checkpoint_id"];
    const text = `Approval pending at checkpoint ${id}: nothing past it has run. Approve with POST /hitl/command {"checkpoint_id": "${id}", "action": "approve"} or send a message on this task with a data part {"action": "approve"}.`;
    return { state: STATE.inputRequired, message: say(text, { checkpoint_id: id }) };
  }
  if (body["status"] === "needs_input" && typeof body["question"] === "string")
    return { state: STATE.inputRequired, message: say(body["question"], { needs_input: true }) };
  const prose = typeof body["response"] === "string" && body["response"] !== "" ? body["response"] : JSON.stringify(body);
  return { state: STATE.completed, artifact: { name: skill, parts: [dataPart(body), textPart(prose)] } };
}

/** The checkpoint a task waits on, as its input-required status message names it. */
function waitingCheckpoint(task: Task | undefined): string | undefined {
  const id = task?.status?.message?.metadata?.["checkpoint_id"];
  return task?.status?.state === STATE.inputRequired && typeof id === "string" ? id : undefined;
}

export function createManifoldExecutor(deps: ExecutorDeps): AgentExecutor & { abortAll(): void } {
  const running = new Map<string, { controller: AbortController; contextId: string }>();
  return {
    async execute(context, bus) {
      const controller = new AbortController();
      running.set(context.taskId, { controller, contextId: context.contextId });
      try {
        await runTask(deps, context, bus, controller.signal);
      } finally {
        running.delete(context.taskId);
        bus.finished();
      }
    },
    async cancelTask(taskId, bus) {
      const run = running.get(taskId);
      run?.controller.abort();
      const contextId = run?.contextId ?? "";
      bus.publish(
        deps.event.statusUpdate({
          taskId,
          contextId,
          status: { state: STATE.canceled, message: undefined, timestamp: new Date().toISOString() },
          metadata: undefined,
        }),
      );
      bus.finished();
    },
    abortAll() {
      for (const { controller } of running.values()) controller.abort();
    },
  };
}

const headersOf = (context: RequestContext): CarriedHeaders => (context.context.state.get(HEADERS_STATE) as CarriedHeaders | undefined) ?? {};

async function runTask(deps: ExecutorDeps, context: RequestContext, bus: ExecutionEventBus, signal: AbortSignal): Promise<void> {
  const { taskId, contextId } = context;
  const ids = { taskId, contextId };
  const now = (): string => new Date().toISOString();
  const status = (state: TaskState, message?: Message): AgentExecutionEvent =>
    deps.event.statusUpdate({ taskId, contextId, status: { state, message, timestamp: now() }, metadata: undefined });
  const plan = planOf(deps, context);
  const metadata = "skill" in plan ? { skill: plan.skill } : {};
  const submitted = { state: STATE.submitted, message: undefined, timestamp: now() };
  bus.publish(deps.event.task(context.task ?? { id: taskId, contextId, status: submitted, artifacts: [], history: [context.userMessage], metadata }));
  if ("refused" in plan) {
    bus.publish(status(STATE.failed, agentMessage(taskId, contextId, [textPart(plan.refused)], { error: { code: "INVALID_INPUT", message: plan.refused } })));
    return;
  }
  bus.publish(status(STATE.working));
  // Each finished plan step, while the task works: `working`, naming the step and its capability.
  const onStep = ({ step_id, tool, status: ended }: FinishedStep): void =>
    bus.publish(
      status(STATE.working, agentMessage(taskId, contextId, [textPart(`step ${step_id} ${ended}: ${tool}`)], { step_id, capability: tool, status: ended })),
    );
  let answer: RouteAnswer;
  try {
    answer = await plan.run({ headers: headersOf(context), signal, conversationId: contextId, onStep });
  } catch {
    if (signal.aborted) return; // CancelTask has published `canceled`.
    const message = "the skill could not be reached";
    bus.publish(status(STATE.failed, agentMessage(taskId, contextId, [textPart(message)], { error: { code: "UNAVAILABLE", message } })));
    return;
  }
  if (signal.aborted) return;
  publishOutcome(deps, bus, outcomeOf(answer, ids, plan.skill), ids, status);
}

function publishOutcome(
  deps: ExecutorDeps,
  bus: ExecutionEventBus,
  outcome: Outcome,
  { taskId, contextId }: { taskId: string; contextId: string },
  status: (state: TaskState, message?: Message) => AgentExecutionEvent,
): void {
  if (outcome.artifact !== undefined)
    bus.publish(
      deps.event.artifactUpdate({
        taskId,
        contextId,
        artifact: {
          artifactId: randomUUID(),
          name: outcome.artifact.name,
          description: "",
          parts: outcome.artifact.parts,
          metadata: undefined,
          extensions: [],
        },
        append: false,
        lastChunk: true,
        metadata: undefined,
      }),
    );
  bus.publish(status(outcome.state, outcome.message));
}

type RunStep = (options: {
  headers: CarriedHeaders;
  signal: AbortSignal;
  conversationId: string;
  onStep: (step: FinishedStep) => void;
}) => Promise<RouteAnswer>;

/** What a message makes the task do: a first run of its skill, or the continuation of a paused one. */
function planOf(deps: ExecutorDeps, context: RequestContext): { skill: string; run: RunStep } | { refused: string } {
  const { skill, text, data } = readMessage(context.userMessage);
  const checkpoint = waitingCheckpoint(context.task);
  if (checkpoint !== undefined)
    return { skill: String(context.task?.metadata?.["skill"] ?? skill ?? NATURAL_SKILL), run: continueCheckpoint(deps, checkpoint, data) };
  const id = skill ?? (deps.targets.has(NATURAL_SKILL) && deps.targets.get(NATURAL_SKILL)?.kind === "natural" ? NATURAL_SKILL : undefined);
  if (id === undefined) return { refused: `name a skill in the message's metadata.skill: one of ${[...deps.targets.keys()].join(", ")}` };
  const target = deps.targets.get(id);
  if (target === undefined) return { refused: `no skill ${id}: the skills are ${[...deps.targets.keys()].join(", ")}` };
  if (target.kind === "natural" && text.trim() === "") return { refused: "natural mode needs the request as a text part" };
  if (target.kind === "natural" && deps.chat === true) {
    const turn = { contextId: context.contextId, messageId: context.userMessage.messageId, text };
    return { skill: id, run: ({ onStep, ...options }) => runChatTurn(deps.caller, turn, options, onStep) };
  }
  const { path, body } = routeOf(target, text, data);
  return { skill: id, run: ({ onStep: _onStep, ...options }) => deps.caller.post(path, body, options) };
}

/** Decides the checkpoint when the message carries `{action}`, then resumes an approved one. */
function continueCheckpoint(deps: ExecutorDeps, checkpointId: string, data: Record<string, unknown> | undefined): RunStep {
  return async ({ onStep: _onStep, ...options }) => {
    const action = data?.["action"];
    if (action === "approve" || action === "reject") {
      const reason = typeof data?.["reason"] === "string" ? { reason: data["reason"] } : {};
      const decided = await deps.caller.post("/hitl/command", { checkpoint_id: checkpointId, action, ...reason }, options);
      if (decided.status >= 400) return decided;
      if (action === "reject")
        return { status: 409, body: { error: { code: "CONFLICT", message: `checkpoint ${checkpointId} was rejected: the run does not go on` } } };
    }
    return deps.caller.post(`/hitl/resume/${encodeURIComponent(checkpointId)}`, {}, options);
  };
}
