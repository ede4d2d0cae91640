/**
 * The agent side's record of scheduled runs by idempotency key (`<schedule_id>:<fire_unix_seconds>`):
 * a delivery claims its key atomically before the handler runs, so a second delivery of the same run
 * (a redelivery after a scheduler crash, a retry racing a slow answer, another replica) learns that
 * the run is in progress or done and never runs the handler again. On Redis the claims are shared by
 * every replica of the agent (SET NX with a TTL, in a script); the memory adapter is one process's,
 * bounded by count and TTL.
 */
import { ManifoldError } from "../errors/index.js";
import { defineLuaScript, type MemoryStore, runScript, type RedisStore, type Store } from "../store/index.js";
import { type Clock, sleepOn, systemClock } from "../util/index.js";

/** What a claim finds: this delivery runs it, or another one is running it / has done it. */
export type ClaimState = "claimed" | "running" | "done";

export interface RunClaims {
  /** Claims `key` for the delivery holding `token`; a running claim lapses after `runningTtlMs` (its replica may have died). */
  claim(key: string, token: string, runningTtlMs: number): Promise<ClaimState>;
  /** The run is done: later deliveries of `key` are dropped for the dedupe window. Only the holder's claim is settled. */
  complete(key: string, token: string): Promise<void>;
  /** The run failed: `key` is freed so that a retry runs it. Only the holder's claim is released. */
  release(key: string, token: string): Promise<void>;
  close(): Promise<void>;
}

/** How long a done run is remembered: the task record's TTL, the executor's own dedupe window. */
export const DONE_TTL_MS = 24 * 60 * 60_000;
/** Most runs one process remembers (memory adapter); the oldest are forgotten first. */
export const DEFAULT_MAX_CLAIMS = 100_000;
/** An idempotency key is a schedule id and a time, perhaps with a replay suffix: nothing else is accepted. */
const KEY = /^[A-Za-z0-9_.:-]{1,250}$/;

export function checkIdempotencyKey(key: unknown): string {
  if (typeof key === "string" && KEY.test(key)) return key;
  throw new ManifoldError("INVALID_INPUT", "the idempotency key must be 1-250 letters, digits, '_', '.', ':' or '-'");
}

interface Held {
  /** `r:<token>` while running, `d` once done. */
  value: string;
  expiresAt: number;
}

export interface MemoryRunClaimsOptions {
  /** @defaultValue 100,000 */
  readonly maxClaims?: number;
  /** @defaultValue 24 h */
  readonly doneTtlMs?: number;
  readonly clock?: Clock;
}

/** One process's claims, and a read of whether a run is done (for an executor sharing the memory store). */
export interface MemoryRunClaims extends RunClaims {
  isDone(key: string): boolean;
}

/** One process's claims: a Map in insertion order, so the oldest claim is the one dropped at the bound. */
export function createMemoryRunClaims({
  maxClaims = DEFAULT_MAX_CLAIMS,
  doneTtlMs = DONE_TTL_MS,
  clock = systemClock,
}: MemoryRunClaimsOptions = {}): MemoryRunClaims {
  const held = new Map<string, Held>();
  const live = (key: string): Held | undefined => {
    const found = held.get(key);
    if (found !== undefined && found.expiresAt <= clock.now()) held.delete(key);
    return found !== undefined && found.expiresAt > clock.now() ? found : undefined;
  };
  const settle = (key: string, token: string, done: boolean): void => {
    if (live(key)?.value !== `r:${token}`) return;
    held.delete(key);
    if (done) held.set(key, { value: "d", expiresAt: clock.now() + doneTtlMs });
  };
  return {
    isDone: (key) => live(key)?.value === "d",
    claim: async (key, token, runningTtlMs) => {
      const found = live(key);
      // Its own token: the same delivery asking again (as a resent Redis script would) still holds it.
      if (found !== undefined) return found.value === "d" ? "done" : found.value === `r:${token}` ? "claimed" : "running";
      // Bounded: the oldest claim goes first (a done run a day old, in the common case).
      while (held.size >= maxClaims) held.delete(held.keys().next().value!);
      held.set(key, { value: `r:${token}`, expiresAt: clock.now() + runningTtlMs });
      return "claimed";
    },
    complete: async (key, token) => settle(key, token, true),
    release: async (key, token) => settle(key, token, false),
    close: async () => undefined,
  };
}

const CLAIM = defineLuaScript("scheduled", new URL("./lua/claim-1.lua", import.meta.url));
const SETTLE = defineLuaScript("scheduled", new URL("./lua/settle-1.lua", import.meta.url));

/** Claims whose release is still being tried, at most; past it one lapses on its own (its running TTL). */
export const MAX_ORPHANS = 1_000;
const ORPHAN_RETRY_FIRST_MS = 100;
const ORPHAN_RETRY_CAP_MS = 2_000;

export interface Orphans {
  /**
   * A claim call failed: the store may still have applied it (Redis killed after applying the script,
   * before answering). Released now, and while that fails, again with backoff until `untilMs` on the
   * clock (when it would lapse anyway); resolves after the first attempt. Without it, every later
   * delivery of the run finds it running (409) until it lapses, and the executor gives up first.
   */
  release(key: string, token: string, untilMs: number): Promise<void>;
  /** Stops the retries (the claims lapse on their own). */
  close(): void;
}

export function createOrphans(claims: RunClaims, { clock = systemClock, max = MAX_ORPHANS }: { clock?: Clock; max?: number } = {}): Orphans {
  const pending = new Set<string>();
  const stop = new AbortController();
  const retry = async (key: string, token: string, untilMs: number) => {
    let pause = ORPHAN_RETRY_FIRST_MS;
    try {
      while (!stop.signal.aborted && clock.now() + pause < untilMs) {
        await sleepOn(clock, pause, stop.signal);
        pause = Math.min(pause * 2, ORPHAN_RETRY_CAP_MS);
        if (
          await claims.release(key, token).then(
            () => true,
            () => false,
          )
        )
          return;
      }
    } finally {
      pending.delete(token);
    }
  };
  return {
    async release(key, token, untilMs) {
      if (
        await claims.release(key, token).then(
          () => true,
          () => false,
        )
      )
        return;
      if (pending.size >= max || stop.signal.aborted) return;
      pending.add(token);
      void retry(key, token, untilMs);
    },
    close: () => stop.abort(),
  };
}

/** Claims shared by the agent's replicas: one key per run (`…:scheduled:runs:<key>`), each script one key, so any Cluster slot. */
export function createRedisRunClaims(
  store: RedisStore,
  { doneTtlMs = DONE_TTL_MS, ownsStore = false }: { readonly doneTtlMs?: number; readonly ownsStore?: boolean } = {},
): RunClaims {
  const keyOf = (key: string) => store.keys.key("scheduled", "runs", key);
  const settle = async (key: string, token: string, how: "done" | "release") => {
    await runScript(store.client, SETTLE, [keyOf(key)], [`r:${token}`, how, doneTtlMs]);
  };
  return {
    claim: async (key, token, runningTtlMs) =>
      (await runScript(store.client, CLAIM, [keyOf(key)], [`r:${token}`, Math.max(1, Math.ceil(runningTtlMs))])) as ClaimState,
    complete: (key, token) => settle(key, token, "done"),
    release: (key, token) => settle(key, token, "release"),
    close: async () => {
      if (ownsStore) await store.close();
    },
  };
}

/** The claims for a store: shared through Redis, else this process's, held in the memory store's namespace. */
export function createRunClaims(store: Store, options: MemoryRunClaimsOptions & { readonly ownsStore?: boolean } = {}): RunClaims {
  if (store.kind === "redis") return createRedisRunClaims(store, options);
  return memoryClaimsOf(store, options);
}

/** One memory store's claims: the same instance for every caller of the store (the agent's route, the executor's check). */
function memoryClaimsOf(store: MemoryStore, options: MemoryRunClaimsOptions = {}): MemoryRunClaims {
  return store.slot("scheduled-runs", () => createMemoryRunClaims(options));
}

/**
 * Whether the run of `key` is recorded done in `store`, read the way the agent's claims write it: the
 * executor asks before it delivers a redelivered task again (the killed executor's POST may have been
 * answered). Same cluster only (the spec's scheduling): when the agent keeps its claims in the same
 * store and namespace; otherwise the key is simply absent here and the run is delivered as before.
 */
export function createRunRecord(store: Store): { isDone(key: string): Promise<boolean> } {
  if (store.kind === "redis") {
    return { isDone: async (key) => (await store.client.get(store.keys.key("scheduled", "runs", checkIdempotencyKey(key)))) === "d" };
  }
  const claims = memoryClaimsOf(store);
  return { isDone: async (key) => claims.isDone(checkIdempotencyKey(key)) };
}
