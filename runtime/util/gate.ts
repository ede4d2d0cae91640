/**
 * At most `limit` holders at once; the rest wait in arrival order. A waiter whose signal aborts
 * leaves the line (its promise rejects with the signal's reason) without taking a place.
 */
export interface Gate {
  /** Resolves with the release function once a place is free. */
  enter(signal?: AbortSignal): Promise<() => void>;
}

export function createGate(limit: number): Gate {
  let inside = 0;
  const line: { admit: () => void }[] = [];
  const leave = (): void => {
    const next = line.shift();
    if (next === undefined) inside -= 1;
    else next.admit();
  };
  const release = (): (() => void) => {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      leave();
    };
  };
  return {
    enter(signal) {
      if (signal?.aborted) return Promise.reject(signal.reason);
      if (inside < limit) {
        inside += 1;
        return Promise.resolve(release());
      }
      return new Promise((resolve, reject) => {
        const waiter = {
          admit: () => {
            signal?.removeEventListener("abort", onAbort);
            resolve(release());
          },
        };
        const onAbort = (): void => {
          const at = line.indexOf(waiter);
          if (at >= 0) line.splice(at, 1);
          reject(signal!.reason);
        };
        signal?.addEventListener("abort", onAbort, { once: true });
        line.push(waiter);
      });
    },
  };
}
