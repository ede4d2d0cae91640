import { isManifoldError, toManifoldError } from "../errors/index.js";

/**
 * Where the component writes its one-line messages. A plain function gets everything; a logger that
 * also has `error` (the default, from telemetry's createLogger) gets failures at error level.
 */
export type Log = ((message: string) => void) & { readonly error?: (message: string) => void };

function describe(error: unknown): string {
  try {
    return error instanceof Error ? (error.stack ?? error.message) : String(error);
  } catch {
    return "(a thrown value that cannot be printed)";
  }
}

/**
 * Any thrown value → status and envelope body. What the caller sees is the ManifoldError's own
 * envelope, which for anything unexpected is INTERNAL with the fixed message "internal error"; the
 * real error goes to the log once, never to the wire.
 */
export function errorResponse(error: unknown, log: Log, where: string): { status: number; body: string } {
  const manifold = toManifoldError(error);
  if (!isManifoldError(error) || !manifold.expose) {
    try {
      const message = `${where} failed: ${describe(error)}`;
      if (log.error !== undefined) log.error(message);
      else log(message);
    } catch {
      // A failing logger must not take the response down with it.
    }
  }
  return { status: manifold.status, body: JSON.stringify(manifold.toEnvelope()) };
}
