export { createBackoff, type Backoff, type BackoffOptions } from "../util/index.js";
import type { ManifoldError } from "../errors/index.js";

/** Worth another attempt: the error says so (network, timeout, unavailable); a refusal is final. */
export function isRetryable(error: ManifoldError): boolean {
  return error.retryable;
}
