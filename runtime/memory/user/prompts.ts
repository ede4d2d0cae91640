/**
 * The prompts of user memory's two model calls: the extraction (a structured request named
 * `user_memory_extraction`, answering `{"facts": [{"key", "value", "action"}]}`) and the profile
 * summary (text). What the user said, what the agent answered and what is stored are quoted as data;
 * both prompts say never to keep secrets. Every part is bounded, so a long turn or 10,000 facts make
 * a prompt of a few KiB.
 */
import { cutUtf8, DATA_RULE, parseJsonAnswer, toolOutput, type LlmMessage } from "../../llm/index.js";
import { MAX_SUMMARY_CHARS, MAX_VALUE_CHARS } from "./store/bounds.js";
import type { Fact } from "./store/types.js";

export const EXTRACTION_JSON_NAME = "user_memory_extraction";

/** Facts shown to the model at most, the most recently updated first, and their bytes. */
export const MAX_FACTS_SHOWN = 50;
const MAX_FACTS_BYTES = 6144;
/** Bytes of the user's message and of the answer quoted. */
export const MAX_TURN_BYTES = 4096;

export const EXTRACTION_SCHEMA: Readonly<Record<string, unknown>> = {
  type: "object",
  additionalProperties: false,
  required: ["facts"],
  properties: {
    facts: {
      type: "array",
      maxItems: 20,
      items: {
        type: "object",
        additionalProperties: false,
        required: ["key", "value", "action"],
        properties: {
          key: { type: "string", pattern: "^[a-z][a-z0-9_]{0,63}$" },
          value: { type: "string", maxLength: MAX_VALUE_CHARS },
          action: { type: "string", enum: ["add", "update", "delete"] },
        },
      },
    },
  },
};

const NO_SECRETS =
  "Never keep a secret, even when the user asks: no passwords, passphrases or PINs, API keys, access tokens, private keys, card numbers, security codes or one-time codes.";

const EXTRACTION_RULES = `You keep a memory of durable facts about one user, so that later answers can be personalised. Read one chat turn and say which facts to add, update or delete.
Answer with one JSON object and nothing else: {"facts": [{"key": "home_city", "value": "Lisbon", "action": "add"}]}.
Rules:
- Only facts about the user that stay true beyond this conversation: where they live, their preferences, constraints, family, recurring plans. Not the request itself, not general knowledge, not details of this one task.
- key: a short snake_case name (home_city, diet, preferred_airline); one value per key. Reuse a known key for the same kind of fact.
- value: a short plain statement, at most ${MAX_VALUE_CHARS} characters.
- action: "add" for a new fact, "update" when the user changed a known fact, "delete" when the user says a known fact is no longer true or asks you to forget it (value: "").
- ${NO_SECRETS}
- When there is nothing durable to keep, answer {"facts": []}.
${DATA_RULE}`;

/** Known facts as `key: value` lines, the most recently updated first, within a byte budget. */
export function factLines(facts: readonly Fact[], { max = MAX_FACTS_SHOWN, maxBytes = MAX_FACTS_BYTES } = {}): string {
  const recent = [...facts].sort((a, b) => (a.updated_at < b.updated_at ? 1 : a.updated_at > b.updated_at ? -1 : a.key < b.key ? -1 : 1));
  const lines: string[] = [];
  let bytes = 0;
  for (const fact of recent.slice(0, max)) {
    const line = `${fact.key}: ${fact.value}`;
    bytes += Buffer.byteLength(line) + 1;
    if (bytes > maxBytes) break;
    lines.push(line);
  }
  return lines.join("\n");
}

export function extractionMessages(turn: { readonly message: string; readonly answer: string }, known: readonly Fact[]): LlmMessage[] {
  const facts = factLines(known);
  const user = [
    `Known facts about the user (key: value):\n${toolOutput(facts === "" ? "(none yet)" : facts, { source: "user_memory" })}`,
    `The user said:\n${toolOutput(cutUtf8(turn.message, MAX_TURN_BYTES).text, { source: "user" })}`,
    `The agent answered:\n${toolOutput(cutUtf8(turn.answer, MAX_TURN_BYTES).text, { source: "agent" })}`,
  ].join("\n\n");
  return [
    { role: "system", content: EXTRACTION_RULES },
    { role: "user", content: user },
  ];
}

const SUMMARY_RULES = `Write a short profile of one user from the facts known about them, for an assistant that personalises its answers: plain prose, third person, at most ${MAX_SUMMARY_CHARS} characters, no lists and no heading. Use only the facts given. ${NO_SECRETS}
${DATA_RULE}`;

export function summaryMessages(facts: readonly Fact[]): LlmMessage[] {
  return [
    { role: "system", content: SUMMARY_RULES },
    { role: "user", content: `Facts (key: value):\n${toolOutput(factLines(facts, { max: 100, maxBytes: 8192 }), { source: "user_memory" })}` },
  ];
}

/** The candidates of an extraction answer: its `facts` array (bounded by reconciliation), or undefined when the answer is not one. */
export function parseExtraction(text: string): unknown[] | undefined {
  const facts = (parseJsonAnswer(text) as { facts?: unknown } | null)?.facts;
  return Array.isArray(facts) ? facts : undefined;
}
