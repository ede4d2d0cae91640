/**
 * A seeded flood of 1,000 hostile chat requests over real HTTP to an agent with chat on the embedded
 * store: malformed and non-object JSON, nesting past the limit, prototype keys, wrong types, control
 * characters, huge strings, unknown and forged session ids, odd query strings — spread over every chat
 * route (`/chat/stream`, `/chat/session`, `/chat/session/<id>`, its history and title, the delete and
 * list routes, `/query`).
 *
 * What a user relies on: no answer is a 500; every refusal is a 4xx error envelope with a code from the
 * closed set; a stream that starts ends with `done` or `error`; no answer carries a stack trace; nothing
 * reaches `Object.prototype`; and the agent still answers a normal turn afterwards. `FUZZ_SEED` replays.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { TravelAgent } from "../../generated/travel-agent/index.js";
import { createPackingList } from "../../manifests/travel/handlers/packing-list.js";
import { createTravelAgentHandlers } from "../../manifests/travel/handlers/travel-agent.js";
import type { ChatHandler } from "../../runtime/chat/index.js";
import { ERROR_CODES } from "../../runtime/errors/index.js";
import { postSse } from "../support/sse-client.js";
import { fuzzSeed, seededRandom } from "../support/random.js";

for (const name of ["OPENAI_API_KEY", "MANIFOLD_LLM_API_KEY", "MANIFOLD_LLM_BASE_URL", "REDIS_URL"]) delete process.env[name];

const SEED = fuzzSeed(20261126);
const TOTAL = 1_000;
const CONCURRENCY = 8;

const rand = seededRandom(SEED);
const { pick, int } = rand;

const handler: ChatHandler = (input) => Promise.resolve(`you said ${input.message.length} characters`);
const clients = TravelAgent.clients();
const agent = await TravelAgent.serve({
  handlers: createTravelAgentHandlers(clients),
  tasks: { packingList: createPackingList(clients) },
  port: 0,
  registry: false,
  handleSignals: false,
  chat: handler,
});

test.after(async () => {
  await agent.close();
});

const WEIRD: readonly unknown[] = [
  null,
  true,
  0,
  -1,
  1e308,
  "",
  " ",
  "\u0000\u202e\ud800",
  [],
  {},
  ["a"],
  "x".repeat(10_000),
  "../../etc/passwd",
  "<script>alert(1)</script>",
  "{{__proto__}}",
  JSON.parse('{"__proto__": {"polluted": 1}}'),
  { constructor: { prototype: { polluted: 1 } } },
];

/** A random session id: real, unknown, or hostile. */
function sessionId(known: readonly string[]): string {
  const roll = rand();
  if (roll < 0.3 && known.length > 0) return pick(known);
  return pick(["nope", "__proto__", "constructor", "%00", "a".repeat(500), "..%2F..%2F", "%E0%A4%A", "s p a c e", "0"]);
}

function body(): string {
  const roll = rand();
  const valid = { message: "hello", session_id: undefined as unknown };
  if (roll < 0.1) return pick(["", "{", "}{", "[]", "null", "42", '"text"', "\u0000", "{'a':1}"]);
  if (roll < 0.2) return `{"message": ${"[".repeat(int(65, 5_000))}`;
  if (roll < 0.25) return JSON.stringify({ message: "m".repeat(int(100_000, 1_500_000)) });
  if (roll < 0.35) return '{"message": "hi", "__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}}';
  if (roll < 0.6) return JSON.stringify({ ...valid, [pick(["message", "session_id", "title", "metadata", "history", "stream"])]: pick(WEIRD) });
  if (roll < 0.75) return JSON.stringify({ message: pick(WEIRD), session_id: pick(WEIRD), extra: pick(WEIRD) });
  return JSON.stringify({ message: pick(["hi", "weather in Paris?", "\u0000", "x".repeat(int(1, 5_000))]) });
}

const STACK = /\n\s+at [^\n]*:\d+:\d+|\bat (?:async )?[\w.<>]+ \([^)]*:\d+:\d+\)/;

test(`${TOTAL} hostile chat requests: no 500, envelopes with known codes, streams that end, no stack (seed ${SEED})`, async () => {
  const known: string[] = [];
  const problems: string[] = [];
  const statuses = new Map<number, number>();
  let sent = 0;
  const one = async (n: number): Promise<void> => {
    const roll = rand();
    const id = encodeURIComponent(sessionId(known)).replace(/%25/g, "%");
    const [method, path] = pick<[string, string]>([
      ["POST", "/chat/stream"],
      ["POST", "/chat/stream"],
      ["POST", "/chat/session"],
      ["POST", "/query"],
      ["GET", `/chat/session/${id}`],
      ["GET", `/chat/session/${id}/history`],
      ["PUT", `/chat/session/${id}/title`],
      ["POST", "/chat/session/delete"],
      ["GET", `/chat/sessions?limit=${pick(["-1", "0", "1e9", "abc", "20", "%00"])}&offset=${pick(["-5", "x", "0", "99999999999"])}`],
    ]);
    const headers: Record<string, string> = { "content-type": roll < 0.95 ? "application/json" : pick(["text/plain", "application/x-www-form-urlencoded"]) };
    if (rand() < 0.3) headers["x-user-id"] = pick(["u1", "victim", "a".repeat(300), "bad user", "__proto__"]);
    const text = method === "GET" ? undefined : body();
    const response = await fetch(agent.url + path, { method, headers, ...(text === undefined ? {} : { body: text }) });
    const answer = await response.text();
    statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
    const where = `#${n} ${method} ${path.slice(0, 80)} → ${response.status}: ${answer.slice(0, 200)}`;
    if (response.status >= 500) problems.push(where);
    if (STACK.test(answer)) problems.push(`stack trace in ${where}`);
    if ((response.headers.get("content-type") ?? "").startsWith("text/event-stream")) {
      const events = [...answer.matchAll(/^event: (\w+)$/gm)].map((m) => m[1]);
      if (!["done", "error"].includes(events.at(-1) ?? "")) problems.push(`stream did not end with done or error: ${where}`);
      const session = /"session_id":"([^"]+)"/.exec(answer)?.[1];
      if (session !== undefined && known.length < 50) known.push(session);
      return;
    }
    const parsed = JSON.parse(answer) as { success?: boolean; error?: { code?: string } };
    if (response.status >= 400 && !(parsed.success === false && typeof parsed.error?.code === "string" && parsed.error.code in ERROR_CODES))
      problems.push(`not an envelope with a known code: ${where}`);
  };
  const worker = async (): Promise<void> => {
    while (sent < TOTAL && problems.length < 5) {
      const n = ++sent;
      try {
        await one(n);
      } catch (error) {
        problems.push(`#${n} failed on the client side: ${String(error)}`);
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  assert.equal(problems, [], problems.join("\n"));
  assert.is(({} as Record<string, unknown>)["polluted"], undefined, "nothing reached Object.prototype");
  assert.ok((statuses.get(200) ?? 0) > 50 && [...statuses.keys()].some((s) => s >= 400), `a mix of answers: ${JSON.stringify([...statuses])}`);
  const after = await postSse(`${agent.url}/chat/stream`, { message: "still there?" });
  assert.is(after.events.at(-1)?.event, "done", "a normal turn still works after the flood");
});

test.run();
