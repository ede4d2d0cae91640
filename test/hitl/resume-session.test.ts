/**
 * A resume whose checkpoint names no conversation (issue 32 audit; the spec: "Missing checkpoint
 * identity on resume: a new session is created"). On an agent with chat, a run started outside chat
 * (no `conversation_id`, no `session_id`) that paused and was approved gets a new chat session when
 * it is resumed: the resumed answer is stored there, the session belongs to whoever made the paused
 * request (its proven identity), and the resume answer carries its `session_id` (the auto-resume
 * stream also sends the spec's `session` event). A checkpoint naming a session that is not the
 * requester's appends nothing there. An agent without chat creates no session.
 */
import { randomBytes } from "node:crypto";
import { SignJWT } from "jose";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { serveAgent } from "../../runtime/agent/index.js";
import type { RunningComponent } from "../../runtime/component/index.js";
import { createMemoryCheckpointStore, type HitlSpec } from "../../runtime/hitl/index.js";
import type { ComponentSpec } from "../../runtime/spec/index.js";
import { postSse } from "../support/sse-client.js";
import { eventually } from "../support/wait.js";
import { agentSpec, startTools, type Tools } from "../orchestration/support.js";
import { QUIET_AGENT } from "../support/serve.js";
import { ECHO_PAY, SENSITIVE_ECHO } from "./support.js";

for (const name of ["REDIS_URL", "MANIFOLD_TRUST_IDENTITY_HEADERS", "MANIFOLD_AUTH_JWKS_URL", "MANIFOLD_AUTH_JWT_SECRET", "MANIFOLD_HITL_APPROVERS"])
  delete process.env[name];
const SECRET = randomBytes(32).toString("hex");
const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

async function startAgent(
  tools: Tools,
  { chat = true, hitl = SENSITIVE_ECHO, expiryIntervalMs }: { chat?: boolean; hitl?: HitlSpec; expiryIntervalMs?: number } = {},
) {
  const base = agentSpec(`resumer-${Math.random().toString(16).slice(2, 8)}`, { custom: true, workflows: [ECHO_PAY] });
  const spec: ComponentSpec = { ...base, agent: { ...base.agent!, hitl, ...(chat ? { chat: true as const } : {}) } };
  return serveAgent(spec, tools.specs, {
    ...QUIET_AGENT,
    auth: { jwt: { secret: SECRET } },
    orchestration: { baseUrls: tools.baseUrls, executionStore: false },
    hitl: { store: createMemoryCheckpointStore(), expiry: expiryIntervalMs === undefined ? false : { intervalMs: expiryIntervalMs } },
  } as never) as Promise<RunningComponent>;
}

async function token(sub: string): Promise<string> {
  return new SignJWT({}).setProtectedHeader({ alg: "HS256" }).setSubject(sub).setIssuedAt().setExpirationTime("5m").sign(new TextEncoder().encode(SECRET));
}

type Caller = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => Promise<{ status: number; body: any }>;

/** Agents of one process share the embedded session store: each test's users are its own (one fresh suffix a test). */
function usersOf(agent: RunningComponent): { subject: (name: string) => string; as: (name: string) => Caller } {
  const suffix = randomBytes(4).toString("hex");
  const subject = (name: string): string => `${name}-${suffix}`;
  return { subject, as: (name) => callerAs(agent, subject(name)) };
}

const callerAs =
  (agent: RunningComponent, who: string): Caller =>
  async (method, path, body, headers = {}) => {
    const response = await fetch(`${agent.url}${path}`, {
      method,
      headers: { "content-type": "application/json", authorization: `Bearer ${await token(who)}`, ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as any };
  };

/** A run of `pay` started outside chat, paused before its sensitive step, and approved by its requester. */
async function approvedCheckpoint(caller: Caller, a: number, headers: Record<string, string> = {}): Promise<string> {
  const paused = await caller("POST", "/orchestrate/pay", { a }, headers);
  assert.is(paused.status, 202, JSON.stringify(paused.body));
  const approved = await caller("POST", "/hitl/command", { checkpoint_id: paused.body.checkpoint_id, action: "approve" });
  assert.is(approved.status, 200, JSON.stringify(approved.body));
  return paused.body.checkpoint_id as string;
}

const test = suite<{ tools: Tools }>("hitl: a resume with no conversation creates a session", {} as never);
test.before(async (context) => {
  context.tools = await startTools();
});
test.after(async ({ tools }) => {
  await tools.close();
});

test("sync resume: the answer carries a new session_id; the session holds the resumed answer and is the requester's alone", async ({ tools }) => {
  const agent = await startAgent(tools);
  const users = usersOf(agent);
  const [alice, mallory] = [users.as("alice"), users.as("mallory")];
  try {
    const paused = await alice("POST", "/orchestrate/pay", { a: 41 });
    assert.is(paused.status, 202, JSON.stringify(paused.body));
    assert.equal(paused.body.checkpoint.user_context, {}, "the run named no conversation");
    const id = paused.body.checkpoint_id as string;
    assert.is((await alice("POST", "/hitl/command", { checkpoint_id: id, action: "approve" })).status, 200);

    const resumed = await alice("POST", `/hitl/resume/${id}`);
    assert.is(resumed.status, 200, JSON.stringify(resumed.body));
    assert.equal(resumed.body.outputs, { charged: 41 });
    const sessionId = resumed.body.session_id;
    assert.match(String(sessionId), SESSION_ID, `the answer names the new session: ${JSON.stringify(resumed.body)}`);

    const session = await alice("GET", `/chat/session/${sessionId}`);
    assert.is(session.status, 200, JSON.stringify(session.body));
    assert.is(session.body.message_count, 1);
    const history = await alice("GET", `/chat/session/${sessionId}/history`);
    assert.is(history.body.messages.length, 1);
    const [message] = history.body.messages;
    assert.is(message.role, "assistant");
    assert.is(message.metadata.resumed, true);
    assert.equal(JSON.parse(message.content).outputs, { charged: 41 }, "the stored message is the resumed answer");
    const listed = await alice("GET", "/chat/sessions");
    assert.equal(
      listed.body.sessions.map((s: { id: string }) => s.id),
      [sessionId],
    );

    assert.is((await mallory("GET", `/chat/session/${sessionId}`)).status, 404, "another identity does not see it");
    assert.is((await mallory("GET", `/chat/session/${sessionId}/history`)).status, 404);
    assert.equal((await mallory("GET", "/chat/sessions")).body.sessions, []);
    const anonymous = await fetch(`${agent.url}/chat/session/${sessionId}`);
    assert.is(anonymous.status, 401, "nor does an anonymous caller (refused: this agent verifies tokens)");
  } finally {
    await agent.close();
  }
});

test("auto-resume stream: a `session` event names the new session, and `done` carries its session_id", async ({ tools }) => {
  const agent = await startAgent(tools);
  const users = usersOf(agent);
  const [alice, mallory] = [users.as("alice"), users.as("mallory")];
  try {
    const id = await approvedCheckpoint(alice, 7);
    const resumed = await postSse(`${agent.url}/hitl/auto-resume/${id}/stream`, undefined, {
      headers: { authorization: `Bearer ${await token(users.subject("alice"))}` },
    });
    assert.equal(
      resumed.events.map((e) => e.event),
      ["session", "done"],
      JSON.stringify(resumed.events),
    );
    const sessionId = resumed.events[0]!.data.session_id;
    assert.match(String(sessionId), SESSION_ID);
    assert.is(resumed.events[0]!.data.created, true);
    assert.is(resumed.events[1]!.data.session_id, sessionId);
    assert.equal(resumed.events[1]!.data.outputs, { charged: 7 });
    const history = await alice("GET", `/chat/session/${sessionId}/history`);
    assert.is(history.status, 200, JSON.stringify(history.body));
    assert.equal(JSON.parse(history.body.messages[0].content).outputs, { charged: 7 });
    assert.is((await mallory("GET", `/chat/session/${sessionId}`)).status, 404);
  } finally {
    await agent.close();
  }
});

test("a checkpoint naming someone else's session appends nothing there, and creates none", async ({ tools }) => {
  const agent = await startAgent(tools);
  const users = usersOf(agent);
  const [alice, mallory] = [users.as("alice"), users.as("mallory")];
  try {
    const victim = await alice("POST", "/chat/session", {});
    assert.is(victim.status, 200, JSON.stringify(victim.body));
    const victimId = victim.body.session_id as string;
    // Mallory's run claims alice's session as its conversation (a header any client can send).
    const id = await approvedCheckpoint(mallory, 9, { "X-Manifold-Conversation-ID": victimId });
    const resumed = await mallory("POST", `/hitl/resume/${id}`);
    assert.is(resumed.status, 200, JSON.stringify(resumed.body));
    assert.equal(resumed.body.outputs, { charged: 9 });
    assert.is(resumed.body.session_id, undefined, "no session: the one named is not the requester's (and a missing one is not recreated)");
    assert.is((await alice("GET", `/chat/session/${victimId}`)).body.message_count, 0, "nothing was written into alice's session");
    assert.equal((await mallory("GET", "/chat/sessions")).body.sessions, []);
  } finally {
    await agent.close();
  }
});

test("the expiry processor's resume of an auto-approved checkpoint makes the session its requester's", async ({ tools }) => {
  const agent = await startAgent(tools, { hitl: { ...SENSITIVE_ECHO, expiryMs: 300, defaultAction: "approve" }, expiryIntervalMs: 50 });
  const alice = usersOf(agent).as("alice");
  try {
    const paused = await alice("POST", "/orchestrate/pay", { a: 5 });
    assert.is(paused.status, 202, JSON.stringify(paused.body));
    // Nobody waits on a non-streaming checkpoint's resume: the session is found by listing the requester's.
    let last: unknown;
    const sessions = await eventually(
      "a session listed as alice's",
      async () => {
        const listed = await alice("GET", "/chat/sessions");
        last = listed.body;
        return listed.body.sessions?.length > 0 ? listed.body.sessions : undefined;
      },
      { describe: () => JSON.stringify(last) },
    );
    assert.is(sessions.length, 1);
    const history = await alice("GET", `/chat/session/${sessions[0].id}/history`);
    assert.equal(JSON.parse(history.body.messages[0].content).outputs, { charged: 5 });
  } finally {
    await agent.close();
  }
});

test("an agent without chat creates no session: the resume answers as its route would", async ({ tools }) => {
  const agent = await startAgent(tools, { chat: false });
  const alice = usersOf(agent).as("alice");
  try {
    const id = await approvedCheckpoint(alice, 3);
    const resumed = await alice("POST", `/hitl/resume/${id}`);
    assert.is(resumed.status, 200, JSON.stringify(resumed.body));
    assert.equal(resumed.body.outputs, { charged: 3 });
    assert.is(resumed.body.session_id, undefined);
    assert.is((await fetch(`${agent.url}/chat/sessions`)).status, 404, "no chat routes");
  } finally {
    await agent.close();
  }
});

test.run();
