/**
 * Values shared by key across a process, each with a count of its holders: the first acquire makes
 * the value, later ones share it as it is, and the last release closes it. The MCP client's sessions
 * and the A2A client's remote agents are both held this way.
 */
export interface SharedLease<V> {
  readonly value: V;
  /** Gives the hold back; idempotent. The last one closes the value. */
  release(): Promise<void>;
}

export interface SharedPool<V> {
  acquire(key: string, create: () => V): SharedLease<V>;
  /** The values held right now, with their holder counts (for tests and diagnostics). */
  held(): readonly { readonly value: V; readonly holders: number }[];
}

export function createSharedPool<V>(close: (value: V) => void | Promise<void>): SharedPool<V> {
  const pool = new Map<string, { readonly value: V; holders: number }>();
  return {
    acquire(key, create) {
      let pooled = pool.get(key);
      if (pooled === undefined) pool.set(key, (pooled = { value: create(), holders: 0 }));
      pooled.holders += 1;
      const held = pooled;
      let released = false;
      return {
        value: held.value,
        async release() {
          if (released) return;
          released = true;
          held.holders -= 1;
          if (held.holders > 0) return;
          if (pool.get(key) === held) pool.delete(key);
          await close(held.value);
        },
      };
    },
    held: () => [...pool.values()].map(({ value, holders }) => ({ value, holders })),
  };
}
