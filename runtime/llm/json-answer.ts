/**
 * A model's JSON answer, read the same way wherever one is asked for. Many models wrap JSON in a
 * Markdown fence (```json … ```) even when told not to, and some lose one end of it (a closing fence
 * cut off by the token limit): an opening fence (with or without `json`, any case) and a closing one are
 * each dropped. Valid JSON never ends in a backtick, so a closing fence is never part of the answer.
 * No regex spans the body: an answer is up to the output cap long, and a lazy match over it is quadratic.
 */
const OPENING = /^```(?:json)?/i;
const CLOSING = "```";

/** The answer's text without its fence, trimmed (the text itself, trimmed, when it has none). */
export function unfenceAnswer(text: string): string {
  let body = text.trim();
  body = body.slice(OPENING.exec(body)?.[0].length ?? 0);
  if (body.endsWith(CLOSING)) body = body.slice(0, -CLOSING.length);
  return body.trim();
}

/** The answer parsed as JSON (a fence unwrapped), or undefined when it is not JSON. */
export function parseJsonAnswer(text: string): unknown {
  try {
    return JSON.parse(unfenceAnswer(text)) as unknown;
  } catch {
    return undefined;
  }
}
