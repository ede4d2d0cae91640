/**
 * Following one remote task to its end: the message goes out on the stream (so the task id is known
 * at once, and a cancellation can name it), each event updates what is known of the task, and a
 * stream that ends before the task settles is followed by GetTask polls on the clock. Everything is
 * bounded by the call's deadline; the caller's abort or the deadline cancels the remote task.
 */
import type { Message, Part, Task } from "@a2a-js/sdk";
import type { Client } from "@a2a-js/sdk/client";
import { isErrorCode, isManifoldError, ManifoldError } from "../errors/index.js";
import { sleepOn, type Clock } from "../util/index.js";

/** The protocol's task states (numbers fixed by A2A 1.0; the SDK's enum is a runtime value, not loaded here). */
export const STATE = { working: 2, completed: 3, failed: 4, canceled: 5, inputRequired: 6, rejected: 7, authRequired: 8 } as const;
const SETTLED = new Set<number>([STATE.completed, STATE.failed, STATE.canceled, STATE.inputRequired, STATE.rejected, STATE.authRequired]);

/** Parts kept from a task's artifacts: more are dropped (a remote agent cannot make us hold an unbounded list). */
const MAX_PARTS = 64;
/** How long CancelTask may take once a call is given up. */
const CANCEL_TIMEOUT_MS = 5_000;

/** What is known of the remote task: its id, state, status message and artifact parts. */
export interface Followed {
  taskId: string | undefined;
  state: number | undefined;
  status: Message | undefined;
  parts: Part[];
}

export interface FollowOptions {
  readonly where: string;
  readonly signal: AbortSignal | undefined;
  readonly closing: AbortSignal;
  readonly timeoutMs: number;
  readonly clock: Clock;
  readonly pollMs: number;
}

function absorbTask(known: Followed, task: Task): void {
  known.taskId = task.id;
  known.state = task.status?.state ?? known.state;
  known.status = task.status?.message ?? known.status;
  const parts = task.artifacts.flatMap((artifact) => artifact.parts);
  if (parts.length > 0) known.parts = parts.slice(0, MAX_PARTS);
}

function absorb(known: Followed, payload: { $case: string; value: unknown } | undefined): void {
  switch (payload?.$case) {
    case "task":
      absorbTask(known, payload.value as Task);
      return;
    case "message": {
      // A direct answer, no task: it is the result.
      const message = payload.value as Message;
      known.state = STATE.completed;
      known.parts = message.parts.slice(0, MAX_PARTS);
      return;
    }
    case "statusUpdate": {
      const update = payload.value as { taskId: string; status?: { state: number; message?: Message } };
      known.taskId ??= update.taskId;
      known.state = update.status?.state ?? known.state;
      known.status = update.status?.message ?? known.status;
      return;
    }
    case "artifactUpdate": {
      const update = payload.value as { taskId: string; append: boolean; artifact?: { parts: Part[] } };
      known.taskId ??= update.taskId;
      const parts = update.artifact?.parts ?? [];
      known.parts = (update.append ? [...known.parts, ...parts] : parts).slice(0, MAX_PARTS);
      return;
    }
  }
}

const settled = (known: Followed): boolean => known.state !== undefined && SETTLED.has(known.state);

function request(message: Message) {
  return { tenant: "", message, configuration: undefined, metadata: undefined };
}

/** A failure of the SDK or the network as our error: transport failures are NETWORK_ERROR (retryable). */
export function transportError(error: unknown, where: string): ManifoldError {
  if (isManifoldError(error)) return error;
  // A Manifold agent's HTTP refusal (401, 403, 413…) is our envelope, which the SDK hands over as the error's `envelopeCode`.
  const code = (error as { envelopeCode?: unknown } | null)?.envelopeCode;
  if (isErrorCode(code)) return new ManifoldError(code, `${where}: the remote agent answered ${code}`);
  const text = error instanceof Error ? error.message : String(error);
  if (/\b401\b/.test(text)) return new ManifoldError("UNAUTHORIZED", `${where}: the remote agent refused the credentials`);
  if (/\b403\b/.test(text)) return new ManifoldError("FORBIDDEN", `${where}: the remote agent refused the call`);
  if (error instanceof TypeError || /HTTP error|ECONN|socket|fetch failed|terminated/i.test(text))
    return new ManifoldError("NETWORK_ERROR", `${where}: the remote agent cannot be reached`, { cause: error });
  return new ManifoldError("INVALID_RESPONSE", `${where}: the remote agent answered something unusable`, { cause: error });
}

async function cancelQuietly(client: Client, taskId: string, clock: Clock): Promise<void> {
  const controller = new AbortController();
  const timer = clock.setTimeout(() => controller.abort(), CANCEL_TIMEOUT_MS);
  try {
    await client.cancelTask({ tenant: "", id: taskId, metadata: undefined }, { signal: controller.signal });
  } catch {
    // Already settled, or unreachable: nothing more to do from here.
  } finally {
    clock.clearTimeout(timer);
  }
}

async function followUntilSettled(client: Client, message: Message, known: Followed, signal: AbortSignal, { clock, pollMs }: FollowOptions): Promise<void> {
  for await (const event of client.sendMessageStream(request(message), { signal })) {
    absorb(known, (event as { payload?: { $case: string; value: unknown } }).payload);
    if (settled(known)) return;
  }
  // The stream ended early (a proxy, a restart): poll until the task settles; the deadline bounds the loop.
  while (!settled(known) && known.taskId !== undefined && !signal.aborted) {
    await sleepOn(clock, pollMs, signal);
    if (signal.aborted) break;
    absorbTask(known, await client.getTask({ tenant: "", id: known.taskId, historyLength: undefined }, { signal }));
  }
  if (!settled(known) && !signal.aborted) throw new Error("the remote agent ended the stream without a task");
}

/** Sends `message` and follows its task until it settles; rejects with ABORTED, TIMEOUT or a transport error. */
export async function followTask(client: Client, message: Message, options: FollowOptions): Promise<Followed> {
  const { where, signal, closing, timeoutMs, clock } = options;
  if (signal?.aborted) throw new ManifoldError("ABORTED", `${where}: the call was aborted`);
  const known: Followed = { taskId: undefined, state: undefined, status: undefined, parts: [] };
  const stop = new AbortController();
  let why: "aborted" | "timeout" | "closed" | undefined;
  const end = (reason: typeof why) => () => {
    why ??= reason;
    stop.abort();
  };
  const onAbort = end("aborted");
  const onClose = end("closed");
  signal?.addEventListener("abort", onAbort, { once: true });
  closing.addEventListener("abort", onClose, { once: true });
  const timer = clock.setTimeout(end("timeout"), timeoutMs);
  try {
    await followUntilSettled(client, message, known, stop.signal, options);
    if (why === undefined) return known;
  } catch (error) {
    if (why === undefined) throw transportError(error, where);
  } finally {
    clock.clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
    closing.removeEventListener("abort", onClose);
  }
  // Given up: the remote task must not run on for nobody.
  if (known.taskId !== undefined && !settled(known)) await cancelQuietly(client, known.taskId, clock);
  if (why === "timeout") throw new ManifoldError("TIMEOUT", `${where} did not finish within ${timeoutMs} ms`);
  if (why === "closed") throw new ManifoldError("UNAVAILABLE", `${where}: the A2A client was closed during the call`);
  throw new ManifoldError("ABORTED", `${where}: the call was aborted`);
}
