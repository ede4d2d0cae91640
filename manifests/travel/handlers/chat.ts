import type { ChatHandler } from "agent-manifold/runtime/codegen/v1";
import { PLACES } from "./data.js";

/** The destination a message is about: a known place it names, else the words after "to" or "in", else the last message's. */
function destinationOf(message: string, earlier: readonly string[]): string | undefined {
  for (const text of [message, ...[...earlier].reverse()]) {
    const known = PLACES.find((p) => text.toLowerCase().includes(p.name.toLowerCase()));
    if (known !== undefined) return known.name;
    const named = /\b(?:to|in|about)\s+([A-Z][\w-]*(?:\s+[A-Z][\w-]*)*)/.exec(text);
    if (named !== null) return named[1];
  }
  return undefined;
}

/**
 * The travel agent's chat without a language model: each message runs the travel-research workflow
 * for the destination it mentions (or the conversation's last one) and answers in a few sentences,
 * streamed piece by piece. With a model configured and no handler, natural mode answers instead.
 */
export const chatHandler: ChatHandler = async function* ({ message, history }, { runWorkflow }) {
  const destination = destinationOf(
    message,
    history.filter((m) => m.role === "user").map((m) => m.content),
  );
  if (destination === undefined) {
    yield "Tell me where you are going (for example: “What is it like in Kyoto?”) and I will look it up.";
    return;
  }
  yield { type: "status", message: `researching ${destination}` };
  const out = await runWorkflow("travel-research", { destination, home_currency: "EUR" });
  yield `${String(out["headline"])}. `;
  if (out["capital"] !== undefined) yield `The capital is ${String(out["capital"])}, and the local currency is ${String(out["currency"])}. `;
  const rates = out["rates"] as Record<string, number> | undefined;
  const local = typeof out["currency"] === "string" ? rates?.[out["currency"]] : undefined;
  if (local !== undefined) yield `One euro buys ${local} ${String(out["currency"])}.`;
};
