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

export interface SelfCallOptions {
  readonly headers: CarriedHeaders;
  readonly signal: AbortSignal;
  readonly conversationId?: string;
}

export interface SelfCaller {
  post(path: string, body: unknown, options: SelfCallOptions): Promise<RouteAnswer>;
  /**
   * A route that answers server-sent events (`/chat/stream`): each `data:` line's JSON to `onData` as it
   * arrives; resolves with the status once the stream ends. A JSON answer (a refusal before the stream) is the body.
   */
  stream(path: string, body: unknown, options: SelfCallOptions, onData: (data: unknown) => void): Promise<RouteAnswer>;
}

/** Most bytes of one server-sent event the caller buffers: the chat stream's frames are far smaller. */
const MAX_EVENT_BYTES = 1024 * 1024;

/** Reads an event stream's `data:` lines (JSON each; `[DONE]` and comments skipped) to `onData`. */
async function readEvents(body: ReadableStream<Uint8Array>, onData: (data: unknown) => void): Promise<void> {
  const decoder = new TextDecoder();
  let buffered = "";
  const take = (frame: string): void => {
    for (const line of frame.split("\n")) {
      if (!line.startsWith("data: ") || line === "data: [DONE]") continue;
      onData(JSON.parse(line.slice(6)));
    }
  };
  for await (const piece of body) {
    buffered += decoder.decode(piece, { stream: true });
    let end = buffered.indexOf("\n\n");
    while (end >= 0) {
      take(buffered.slice(0, end));
      buffered = buffered.slice(end + 2);
      end = buffered.indexOf("\n\n");
    }
    if (buffered.length > MAX_EVENT_BYTES) throw new ManifoldError("PAYLOAD_TOO_LARGE", "an event of the chat stream is too large");
  }
  take(buffered);
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
  const send = (path: string, body: unknown, { headers, signal, conversationId }: SelfCallOptions): Promise<Response> => {
    const base = baseUrl();
    if (base === undefined) throw new ManifoldError("UNAVAILABLE", "the agent is not listening yet");
    return fetch(`${base}${path}`, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json", ...(conversationId === undefined ? {} : { "x-manifold-conversation-id": conversationId }) },
      body: JSON.stringify(body),
      signal,
    });
  };
  return {
    post: async (path, body, options) => jsonAnswer(path, await send(path, body, options)),
    async stream(path, body, options, onData) {
      const response = await send(path, body, options);
      if (!(response.headers.get("content-type") ?? "").startsWith("text/event-stream") || response.body === null) return jsonAnswer(path, response);
      await readEvents(response.body, onData);
      return { status: response.status, body: undefined };
    },
  };
}

async function jsonAnswer(path: string, response: Response): Promise<RouteAnswer> {
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === "" ? undefined : JSON.parse(text);
  } catch {
    throw new ManifoldError("INTERNAL", `${path} answered something other than JSON (${response.status})`);
  }
  return { status: response.status, body: parsed };
}
