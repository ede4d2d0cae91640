/**
 * Waiting in tests, one copy. None of these asserts how long anything took: a limit here is a guard
 * against a hang (a broken build fails with a message saying what it waited for instead of stalling
 * the suite), never a speed aim. Speed aims live in bench/.
 */

/** How long a test waits for something before it gives up; generous, because a loaded 2-core CI machine is slow. */
export const WAIT_LIMIT_MS = Number(process.env["TEST_WAIT_LIMIT_MS"] ?? 30_000);

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export interface EventuallyOptions {
  /** @defaultValue WAIT_LIMIT_MS */
  readonly limitMs?: number;
  /** @defaultValue 20 */
  readonly intervalMs?: number;
  /** Describes the last value seen, for the failure message. */
  readonly describe?: () => string | Promise<string>;
}

/**
 * Polls `check` until it returns a truthy value, and returns that value. Gives up after the limit
 * with an error naming `what` it waited for (and the last state, when `describe` is given).
 */
export async function eventually<T>(
  what: string,
  check: () => T | Promise<T>,
  { limitMs = WAIT_LIMIT_MS, intervalMs = 20, describe }: EventuallyOptions = {},
): Promise<NonNullable<T>> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) {
      const last = describe === undefined ? "" : ` (last seen: ${await describe()})`;
      throw new Error(`gave up waiting for ${what} after ${limitMs} ms${last}`);
    }
    await sleep(intervalMs);
  }
}

/** Awaits `promise`, failing with a message naming `what` if it has not settled within the limit (a hang guard). */
export async function within<T>(what: string, promise: Promise<T>, limitMs = WAIT_LIMIT_MS): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const guard = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`gave up waiting for ${what} after ${limitMs} ms`)), limitMs);
  });
  try {
    return await Promise.race([promise, guard]);
  } finally {
    clearTimeout(timer);
  }
}
