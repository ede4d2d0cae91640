/**
 * The inbound check's parts one by one, on a tiny tool whose handler answers callerIdentity(): an
 * `auth.verify` that returns a subject names the caller; an agent token for another audience, or
 * expired, or signed with another network's key, is 401; X-Manifold-Agent-Token is never copied
 * from an inbound request into an outbound one; the caller's identity is anonymous when nothing
 * proves one, whatever X-User-ID says.
 */
import { randomBytes } from "node:crypto";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { serveComponent } from "../../runtime/component/index.js";
import { agentIdentityKey, callerIdentity, HEADER, mintAgentToken, OutboundContext, RESERVED_HEADERS } from "../../runtime/context/index.js";
import { tool, toolSpec } from "../support/specs.js";

const spec = toolSpec(tool("whoami-tool", { capabilities: { whoami: { output: { subject: "string", kind: "string", via: "string" } } } }));
const key = randomBytes(32).toString("hex");
const quiet = { port: 0, registry: false as const, handleSignals: false, log: () => undefined };
const handlers = { whoami: () => ({ ...callerIdentity() }) };

const withVerify = await serveComponent(spec, {
  ...quiet,
  handlers,
  auth: { required: false, verify: (token: string) => (token === "static-token-of-ops" ? "ops" : token === "valid-anonymous") },
});
process.env["MANIFOLD_REGISTRY_KEY"] = key;
const keyed = await serveComponent(spec, { ...quiet, handlers });
delete process.env["MANIFOLD_REGISTRY_KEY"];
const open = await serveComponent(spec, { ...quiet, handlers });

test.after(async () => {
  await Promise.all([withVerify.close(), keyed.close(), open.close()]);
});

async function whoami(url: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${url}/api/capabilities/whoami`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: "{}" });
  return { status: response.status, body: (await response.json()) as any };
}

test("auth.verify: a returned subject is the caller; true is valid but names nobody; false is 401", async () => {
  assert.equal((await whoami(withVerify.url, { authorization: "Bearer static-token-of-ops" })).body, { subject: "ops", kind: "user", via: "token" });
  assert.equal((await whoami(withVerify.url, { authorization: "Bearer valid-anonymous" })).body, { subject: "anonymous", kind: "user", via: "anonymous" });
  assert.is((await whoami(withVerify.url, { authorization: "Bearer wrong" })).status, 401);
  assert.equal((await whoami(withVerify.url, { "x-user-id": "ops" })).body.via, "anonymous", "X-User-ID names nobody without a trusted gateway");
});

test("agent tokens: the audience, the expiry and the key are checked; a good one names the agent", async () => {
  const own = agentIdentityKey({ MANIFOLD_REGISTRY_KEY: key })!;
  const good = await mintAgentToken(own, "travel-agent", "whoami-tool");
  assert.equal((await whoami(keyed.url, { [HEADER.AGENT_TOKEN]: good })).body, { subject: "travel-agent", kind: "agent", via: "token" });
  const elsewhere = await mintAgentToken(own, "travel-agent", "scheduler");
  const expired = await mintAgentToken(own, "travel-agent", "whoami-tool", Date.now() - 10 * 60_000);
  const stranger = await mintAgentToken(agentIdentityKey({ MANIFOLD_REGISTRY_KEY: randomBytes(32).toString("hex") })!, "travel-agent", "whoami-tool");
  for (const [what, token] of [
    ["another audience", elsewhere],
    ["expired", expired],
    ["another network's key", stranger],
    ["garbage", "not.a.token"],
    ["a subject no component can be named", await mintAgentToken(own, "1bot", "whoami-tool")],
  ] as const) {
    const reply = await whoami(keyed.url, { [HEADER.AGENT_TOKEN]: token });
    assert.equal([reply.status, reply.body.error?.code], [401, "UNAUTHORIZED"], what);
  }
  // Any component name is an agent's name, a trailing hyphen included (the manifest's DNS-label rule).
  const hyphen = await mintAgentToken(own, "travel-", "whoami-tool");
  assert.equal((await whoami(keyed.url, { [HEADER.AGENT_TOKEN]: hyphen })).body.subject, "travel-");
  // A component without the network key cannot check a token, so it takes none as proof.
  assert.equal((await whoami(open.url, { [HEADER.AGENT_TOKEN]: good, "x-manifold-agent-name": "travel-agent" })).body.via, "anonymous");
});

test("X-Manifold-Agent-Token is reserved: never propagated, and refused as a context header", () => {
  assert.ok(RESERVED_HEADERS.has("x-manifold-agent-token"));
  assert.throws(() => new OutboundContext().setHeader("X-Manifold-Agent-Token", "forged"), /set by the caller/);
});

test.run();
