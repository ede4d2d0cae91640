/**
 * Ids a session store and a held stream keep, as flat strings. Node's `randomUUID()` builds its string
 * by concatenation, which V8 keeps as a chain of a dozen pieces (about 480 bytes of heap per id, against
 * 56 flat) until something reads its characters; a held `/chat/stream` kept several such chains (bench:chat).
 */
import { randomUUID } from "node:crypto";

/** `text`, flattened in place: reading a character makes V8 replace a concatenation's pieces by one flat copy. */
export function flat<T extends string>(text: T): T {
  text.charCodeAt(0);
  return text;
}

/** A new random UUID, flat. */
export function newId(): ReturnType<typeof randomUUID> {
  return flat(randomUUID());
}
