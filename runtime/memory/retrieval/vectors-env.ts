/**
 * Whether recall ranks with vectors too (`MANIFOLD_MEMORY_VECTORS`), read at start-up by the memory
 * feature's shell and by the retriever: anything but true/false (or unset) is a mistake worth stopping for.
 */
import { envFlag } from "../../util/index.js";

export const VECTOR_DB_URL_ENV = "MANIFOLD_VECTOR_DB_URL";
export const MEMORY_VECTORS_ENV = "MANIFOLD_MEMORY_VECTORS";

export function vectorsWanted(env: Readonly<Record<string, string | undefined>>): boolean {
  const url = env[VECTOR_DB_URL_ENV]?.trim();
  if (url !== undefined && url !== "")
    throw new RangeError(
      `${VECTOR_DB_URL_ENV} is set, but there is no adapter for an external vector database in this release; unset it to use the in-process index`,
    );
  return envFlag(env, MEMORY_VECTORS_ENV) ?? false;
}
