import { isManifoldError, type ManifoldError } from "../../runtime/errors/index.js";

/** The ManifoldError a promise rejects with; anything else it throws is rethrown, and a resolution fails. */
export async function rejection(promise: Promise<unknown>): Promise<ManifoldError> {
  try {
    await promise;
  } catch (error) {
    if (isManifoldError(error)) return error;
    throw error;
  }
  throw new Error("expected a rejection, the promise resolved");
}
