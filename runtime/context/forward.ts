import type { IncomingHttpHeaders } from "node:http";
import { bearerToken, isSkippedHeader } from "./headers.js";

export interface ForwardOptions {
  /** Forward the incoming `Authorization: Bearer` token. @defaultValue true */
  readonly token?: boolean;
  /** Incoming headers to forward by name (for example a tenant header). @defaultValue none */
  readonly headers?: readonly string[];
}

/** What forwarding takes from an incoming request; header names lower-cased. */
export interface Forwarded {
  readonly token: string | undefined;
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * The incoming bearer token (unless `token: false`) and the named incoming headers, for the calls
 * made while handling the request. Reserved names are skipped, as for every propagated header; the
 * token has its own switch.
 */
export function forwardedFrom(incoming: IncomingHttpHeaders, { token = true, headers = [] }: ForwardOptions = {}): Forwarded {
  const picked: Record<string, string> = {};
  for (const name of headers) {
    const lower = name.toLowerCase();
    const value = incoming[lower];
    if (typeof value === "string" && !isSkippedHeader(lower)) picked[lower] = value;
  }
  return { token: token ? bearerToken(incoming.authorization) : undefined, headers: picked };
}
