/**
 * Hot paths call user code (capability handlers, `auth.verify`, task handlers, a resolver) that may
 * answer synchronously or with a promise; a synchronous answer is used as is, so no promise (and no
 * extra microtask) is made for it.
 */
export function isThenable<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof value === "object" && value !== null && typeof (value as { then?: unknown }).then === "function";
}
