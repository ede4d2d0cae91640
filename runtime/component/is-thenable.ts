/**
 * The fast path calls user code (handlers, `auth.verify`) that may answer synchronously or with a
 * promise; a synchronous answer is used as is, so no promise is made for it.
 */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === "object" && value !== null && typeof (value as { then?: unknown }).then === "function";
}
