/**
 * An abort source cheaper than an AbortSignal, for what the runtime makes once per unit of work at
 * high rates: a task run's (a scheduled dispatch per task). An AbortSignal costs about 8 µs to make
 * and a listener on it more again, in the garbage collector above all; this is a flag, a reason and
 * a set of listeners. The outbound caller takes either.
 */
export interface Abortable {
  readonly aborted: boolean;
  /** Why it was aborted; undefined while it is not. */
  readonly reason: unknown;
  /** Calls `listener` once, when it is aborted from now on (never for an abort that came before); returns the unsubscribe. */
  onAbort(listener: () => void): () => void;
}

export type AbortSource = AbortSignal | Abortable;
