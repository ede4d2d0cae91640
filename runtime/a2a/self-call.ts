/**
 * A skill runs through the agent's own HTTP route (`/orchestrate/natural`, `/orchestrate/<workflow>`,
 * the capability's endpoint, `/hitl/command`, `/hitl/resume/<id>`) on loopback, carrying the A2A
 * caller's credentials: the same bearer check, identity, approval gate, validation, body limit and
 * answer as any HTTP caller gets, so the A2A door cannot drift from the others.
 */
import { ManifoldError } from "../errors/index.js";

/** Headers of the A2A request that a skill's route call carries: who the caller is, and the request id. */
export const CARRIED_HEADERS = ["authorization", "x-user-id", "x-manifold-agent-name", "x-manifold-agent-token", "x-manifold-request-id"] as const;

export type CarriedHeaders = Readonly<Record<string, string>>;

/** What a route answered: its status and JSON body. */
export interface RouteAnswer {
  readonly status: number;
  readonly body: unknown;
}

export interface SelfCaller {
  post(
    path: string,
    body: unknown,
    options: { readonly headers: CarriedHeaders; readonly signal: AbortSignal; readonly conversationId?: string },
  ): Promise<RouteAnswer>;
}

/** The carried headers of an inbound request (first value of each). */
export function carriedHeaders(headers: Readonly<Record<string, string | string[] | undefined>>): CarriedHeaders {
  const carried: Record<string, string> = {};
  for (const name of CARRIED_HEADERS) {
    const value = headers[name];
    const first = Array.isArray(value) ? value[0] : value;
    if (first !== undefined) carried[name] = first;
  }
  return carried;
}

/** Calls the agent at `baseUrl()` (known once it listens). */
export function createSelfCaller(baseUrl: () => string | undefined): SelfCaller {
  return {
    async post(path, body, { headers, signal, conversationId }) {
      const base = baseUrl();
      if (base === undefined) throw new ManifoldError("UNAVAILABLE", "the agent is not listening yet");
      const response = await fetch(`${base}${path}`, {
        method: "POST",
        headers: { ...headers, "content-type": "application/json", ...(conversationId === undefined ? {} : { "x-manifold-conversation-id": conversationId }) },
        body: JSON.stringify(body),
        signal,
      });
      const text = await response.text();
      let parsed: unknown;
      try {
        parsed = text === "" ? undefined : JSON.parse(text);
      } catch {
        throw new ManifoldError("INTERNAL", `${path} answered something other than JSON (${response.status})`);
      }
      return { status: response.status, body: parsed };
    },
  };
}
