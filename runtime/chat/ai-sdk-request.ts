/**
 * Reading an AI SDK chat request (DESIGN §5.4): `POST /chat/stream` whose body is what `useChat`'s
 * `DefaultChatTransport` sends (`{id, messages, trigger?, messageId?}`, no `message`), or any request
 * with `?protocol=ai-sdk`. The user's new message is the last `messages` entry with role `user` (its
 * text parts joined); the history is the server's session, as on the spec's path, so the client's
 * earlier messages are not read.
 */
import { createHash } from "node:crypto";
import { ManifoldError } from "../errors/index.js";
import type { RouteContext } from "../component/index.js";
import { flat } from "./ids.js";
import { MAX_MESSAGE_CHARS } from "./wire.js";

/** The response header that names the protocol (the `ai` package's UI_MESSAGE_STREAM_HEADERS). */
export const AI_SDK_STREAM_HEADER = "x-vercel-ai-ui-message-stream";
/** Longest chat id read from `id`: useChat's ids are 16 characters, a UUID 36. */
const MAX_CHAT_ID_CHARS = 200;

function invalid(pointer: string, message: string): ManifoldError {
  return new ManifoldError("INVALID_INPUT", message, { details: [{ pointer, message }] });
}

/** Whether this `/chat/stream` request is answered in the AI SDK's UI message stream protocol. */
export function wantsAiSdk(ctx: RouteContext, body: Record<string, unknown>): boolean {
  // No query string, no parsed query object held for the stream's life (bench:chat).
  const protocol = (ctx.req.url ?? "").includes("?") ? ctx.query["protocol"] : undefined;
  if (protocol === "ai-sdk") return true;
  return body["message"] === undefined && Array.isArray(body["messages"]);
}

/** A message's text: its `text` parts joined by newlines (a v4-style `content` string is read too). */
function textOf(message: Record<string, unknown>, pointer: string): string {
  const { parts, content } = message;
  if (Array.isArray(parts)) {
    const texts = parts
      .filter((part): part is { type: "text"; text: string } => {
        const { type, text } = (part ?? {}) as { type?: unknown; text?: unknown };
        return type === "text" && typeof text === "string";
      })
      .map((part) => part.text);
    return texts.join("\n");
  }
  if (typeof content === "string") return content;
  throw invalid(`${pointer}/parts`, "a user message needs `parts` (an array with text parts)");
}

/** The last user message's text, bounded like the spec's `message`. */
export function aiSdkMessageOf(body: Record<string, unknown>): string {
  const { messages } = body;
  if (!Array.isArray(messages)) throw invalid("/messages", "`messages` is required: the chat's messages, the last user one being the new message");
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i] as Record<string, unknown> | null;
    if (typeof message !== "object" || message === null || message["role"] !== "user") continue;
    const text = textOf(message, `/messages/${i}`);
    if (text.trim() === "") throw invalid(`/messages/${i}/parts`, "the last user message has no text");
    if (text.length > MAX_MESSAGE_CHARS) throw new ManifoldError("PAYLOAD_TOO_LARGE", `the last user message is longer than ${MAX_MESSAGE_CHARS} characters`);
    return text;
  }
  throw invalid("/messages", "`messages` has no message with role user");
}

/** The chat's id (useChat's `id`), when given. */
export function chatIdOf(body: Record<string, unknown>): string | undefined {
  const id = body["id"];
  if (id === undefined || id === null || id === "") return undefined;
  if (typeof id !== "string" || id.length > MAX_CHAT_ID_CHARS) throw invalid("/id", `\`id\` must be a string of at most ${MAX_CHAT_ID_CHARS} characters`);
  return id;
}

/**
 * The session a chat id stands for, for this owner: a UUID shaped from both, so the same `id` finds
 * the same session on every turn whatever form the client's ids take, and two callers using the same
 * `id` never share (or overwrite) a session.
 */
export function derivedSessionId(owner: string, chatId: string): string {
  const hex = createHash("sha256").update(`manifold-chat\0${owner}\0${chatId}`).digest("hex");
  // Version 8 (custom) with the RFC 9562 variant, so it is a well-formed UUID like every other session id.
  return flat(
    `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${((Number.parseInt(hex[16]!, 16) & 3) | 8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`,
  );
}
