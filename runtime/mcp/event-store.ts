/**
 * The events of a component's MCP streams, kept so that a client whose stream dropped can reconnect
 * with `Last-Event-ID` and get what it missed (Streamable HTTP resumability). In memory, one store per
 * component, bounded every way a client could grow it: at most `maxEventsPerStream` per stream and
 * `maxBytes` in all (the oldest events go first, from the least recently used stream), and a stream
 * not written or read for `idleTtlMs` on the clock is forgotten. A stream belongs to one session: its
 * id starts with the session's, and a session replays only its own streams.
 */
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { checkInteger, systemClock, type Clock, type ClockTimer } from "../util/index.js";

export interface McpEventStoreOptions {
  /** @defaultValue 100 */
  readonly maxEventsPerStream?: number;
  /** The serialised size of every stored event together. @defaultValue 4 MiB */
  readonly maxBytes?: number;
  /** @defaultValue 300000 (5 minutes) */
  readonly idleTtlMs?: number;
  /** @defaultValue systemClock */
  readonly clock?: Clock;
}

/** An event as written on the wire: its id and its `data` line (the message, serialised once). */
export interface StoredEvent {
  readonly id: string;
  readonly data: string;
}

interface Stream {
  readonly events: { readonly seq: number; readonly data: string }[];
  next: number;
  lastUsed: number;
}

export interface McpEventStore {
  /** Stores `message` (or its JSON) on `streamId` (none: a priming event, only an id); its event id is `<streamId>:<seq>`. */
  store(streamId: string, message: JSONRPCMessage | string | undefined): StoredEvent;
  /** The stream of an event id when it belongs to `session` and is still kept, else undefined. */
  streamOf(eventId: string, session: string): string | undefined;
  /** The kept events of the stream after `eventId` (all kept ones when it was already dropped). */
  after(eventId: string): StoredEvent[];
  /** Forgets every stream of a session (it closed). */
  forget(session: string): void;
  /** Stops the sweep timer and forgets everything. */
  clear(): void;
  readonly bytes: number;
}

/** `<session>.<stream>:<seq>` → [`<session>.<stream>`, seq]. */
function parse(eventId: string): [string, number] | undefined {
  const colon = eventId.lastIndexOf(":");
  if (colon <= 0) return undefined;
  const seq = Number(eventId.slice(colon + 1));
  return Number.isSafeInteger(seq) ? [eventId.slice(0, colon), seq] : undefined;
}

/** One timer, for the least recently used stream (the map's first); when it fires, the idle ones at the front go. */
function createIdleSweep(streams: Map<string, Stream>, idleTtlMs: number, clock: Clock, drop: (id: string, stream: Stream) => void) {
  let timer: ClockTimer | undefined;
  const sweep = (): void => {
    timer = undefined;
    const now = clock.now();
    for (const [id, stream] of streams) {
      if (now - stream.lastUsed < idleTtlMs) break;
      drop(id, stream);
    }
    schedule();
  };
  function schedule(): void {
    if (timer !== undefined) return;
    const first = streams.values().next();
    if (first.done === true) return;
    timer = clock.setTimeout(sweep, Math.max(0, first.value.lastUsed + idleTtlMs - clock.now()));
  }
  return {
    schedule,
    stop(): void {
      clock.clearTimeout(timer);
      timer = undefined;
    },
  };
}

export function createMcpEventStore({
  maxEventsPerStream = 100,
  maxBytes = 4 * 1024 * 1024,
  idleTtlMs = 300_000,
  clock = systemClock,
}: McpEventStoreOptions = {}): McpEventStore {
  checkInteger("maxEventsPerStream", maxEventsPerStream, { min: 1 });
  checkInteger("maxBytes", maxBytes, { min: 1 });
  checkInteger("idleTtlMs", idleTtlMs, { min: 1 });
  // Insertion order is use order: the first stream is the least recently used.
  const streams = new Map<string, Stream>();
  let bytes = 0;
  const drop = (id: string, stream: Stream): void => {
    for (const event of stream.events) bytes -= event.data.length;
    streams.delete(id);
  };
  const sweeper = createIdleSweep(streams, idleTtlMs, clock, drop);
  const touch = (id: string, stream: Stream): void => {
    stream.lastUsed = clock.now();
    streams.delete(id);
    streams.set(id, stream);
    sweeper.schedule();
  };
  /** Oldest events out, from the least recently used stream, until the total fits. */
  const shrink = (): void => {
    for (const [id, stream] of streams) {
      while (bytes > maxBytes && stream.events.length > 0) bytes -= stream.events.shift()!.data.length;
      if (stream.events.length === 0 && bytes > maxBytes) streams.delete(id);
      if (bytes <= maxBytes) return;
    }
  };

  return {
    store(streamId, message) {
      let stream = streams.get(streamId);
      if (stream === undefined) {
        stream = { events: [], next: 1, lastUsed: clock.now() };
        streams.set(streamId, stream);
      }
      const data = message === undefined ? "" : typeof message === "string" ? message : JSON.stringify(message);
      const seq = stream.next++;
      stream.events.push({ seq, data });
      bytes += data.length;
      if (stream.events.length > maxEventsPerStream) bytes -= stream.events.shift()!.data.length;
      touch(streamId, stream);
      if (bytes > maxBytes) shrink();
      return { id: `${streamId}:${seq}`, data };
    },
    streamOf(eventId, session) {
      const parsed = parse(eventId);
      if (parsed === undefined || !parsed[0].startsWith(`${session}.`)) return undefined;
      return streams.has(parsed[0]) ? parsed[0] : undefined;
    },
    after(eventId) {
      const parsed = parse(eventId);
      const stream = parsed === undefined ? undefined : streams.get(parsed[0]);
      if (parsed === undefined || stream === undefined) return [];
      touch(parsed[0], stream);
      // A priming event (no data) only gave the client an id: nothing to replay.
      return stream.events.filter((event) => event.seq > parsed[1] && event.data !== "").map(({ seq, data }) => ({ id: `${parsed[0]}:${seq}`, data }));
    },
    forget(session) {
      for (const [id, stream] of [...streams]) if (id.startsWith(`${session}.`)) drop(id, stream);
    },
    clear() {
      sweeper.stop();
      streams.clear();
      bytes = 0;
    },
    get bytes() {
      return bytes;
    },
  };
}
