/**
 * Reads a server-sent event stream over real HTTP with eventsource-parser: every event in arrival
 * order, its data parsed as JSON, and the comments (heartbeats). `hangUp` (a promise) lets a test
 * hang up in the middle of a stream, as a closing browser tab would.
 */
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

// The package's published build: the tests run with the "source" condition, under which
// eventsource-parser would hand over its TypeScript sources instead.
const packageDir = dirname(fileURLToPath(import.meta.resolve("eventsource-parser/package.json")));
const { createParser } = (await import(pathToFileURL(join(packageDir, "dist", "index.js")).href)) as typeof import("eventsource-parser");

export interface SseEvent {
  readonly event: string;
  readonly data: any;
}

export interface SseResult {
  readonly status: number;
  readonly contentType: string;
  readonly events: SseEvent[];
  readonly comments: string[];
  /** The response body when it was not a stream (an error envelope before the headers). */
  readonly body?: unknown;
}

export async function postSse(
  url: string,
  body: unknown,
  { headers = {}, hangUp, timeoutMs = 30_000 }: { headers?: Record<string, string>; hangUp?: Promise<unknown>; timeoutMs?: number } = {},
): Promise<SseResult> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    // No body: a GET stream (a HITL auto-resume).
    const response = await fetch(url, {
      method: body === undefined ? "GET" : "POST",
      headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), accept: "text/event-stream", ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: controller.signal,
    });
    const contentType = response.headers.get("content-type") ?? "";
    if (!contentType.startsWith("text/event-stream")) return { status: response.status, contentType, events: [], comments: [], body: await response.json() };
    const events: SseEvent[] = [];
    const comments: string[] = [];
    let stop = false;
    const parser = createParser({
      onEvent: (e) => {
        events.push({ event: e.event ?? "message", data: JSON.parse(e.data) });
      },
      onComment: (c) => comments.push(c),
    });
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    // Hanging up closes the connection, as a closed browser tab does.
    void hangUp?.then(() => {
      stop = true;
      controller.abort();
    });
    while (!stop) {
      const read = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (read.done) break;
      parser.feed(decoder.decode(read.value, { stream: true }));
    }
    if (stop) await reader.cancel().catch(() => undefined);
    return { status: response.status, contentType, events, comments };
  } finally {
    clearTimeout(timer);
  }
}
