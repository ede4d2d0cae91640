/**
 * Proven identities (issue 32 M3, DESIGN §5.5) on served agents: a JWT bearer token, verified with an
 * HS256 secret or a JWKS served on loopback (a generated EC key), names the caller; a bad signature,
 * issuer, audience or expiry is 401 in the error envelope. Chat sessions belong to their caller:
 * `X-User-ID: victim` without a trusted gateway neither lists, reads, retitles, deletes nor streams
 * into the victim's sessions. With MANIFOLD_TRUST_IDENTITY_HEADERS=true the header is honoured.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from "jose";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { TravelAgent } from "../../generated/travel-agent/index.js";
import { createPackingList } from "../../manifests/travel/handlers/packing-list.js";
import { createTravelAgentHandlers } from "../../manifests/travel/handlers/travel-agent.js";
import type { RunningComponent } from "../../runtime/component/index.js";
import { postSse } from "../support/sse-client.js";

for (const name of ["OPENAI_API_KEY", "MANIFOLD_LLM_API_KEY", "MANIFOLD_LLM_BASE_URL", "REDIS_URL", "MANIFOLD_REGISTRY_KEY"]) delete process.env[name];
const AUTH_VARS = ["MANIFOLD_AUTH_JWT_SECRET", "MANIFOLD_AUTH_JWKS_URL", "MANIFOLD_AUTH_ISSUER", "MANIFOLD_AUTH_AUDIENCE", "MANIFOLD_TRUST_IDENTITY_HEADERS"];

const SECRET = "s3cret-s3cret-s3cret-s3cret-s3cret-0123456789";
const ISSUER = "https://id.example.test";
const AUDIENCE = "travel";

/** Serves a travel agent (chat by a plain handler) with these variables set while it starts, and only then. */
async function serveWith(vars: Record<string, string>): Promise<RunningComponent> {
  for (const name of AUTH_VARS) delete process.env[name];
  Object.assign(process.env, vars);
  try {
    const clients = TravelAgent.clients();
    return await TravelAgent.serve({
      handlers: createTravelAgentHandlers(clients),
      tasks: { packingList: createPackingList(clients) },
      chat: (input) => Promise.resolve(`answer to ${input.message}`),
      port: 0,
      registry: false,
      handleSignals: false,
      log: () => undefined,
    });
  } finally {
    for (const name of AUTH_VARS) delete process.env[name];
  }
}

interface Claims {
  sub?: string;
  iss?: string;
  aud?: string;
  exp?: number;
}

async function sign(key: Uint8Array | CryptoKey, alg: string, claims: Claims, kid?: string): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const { sub = "alice", iss = ISSUER, aud = AUDIENCE, exp = now + 300 } = claims;
  return new SignJWT({})
    .setProtectedHeader({ alg, ...(kid === undefined ? {} : { kid }) })
    .setSubject(sub)
    .setIssuer(iss)
    .setAudience(aud)
    .setIssuedAt(now - 10)
    .setExpirationTime(exp)
    .sign(key);
}

const hs = (claims: Claims = {}, secret = SECRET) => sign(new TextEncoder().encode(secret), "HS256", claims);

async function call(
  url: string,
  method: string,
  path: string,
  { token, headers = {}, body }: { token?: string; headers?: Record<string, string>; body?: unknown } = {},
) {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { "content-type": "application/json", ...(token === undefined ? {} : { authorization: `Bearer ${token}` }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: JSON.parse(text) as any, text, challenge: response.headers.get("www-authenticate") };
}

// A JWKS on loopback: the issuer's public EC key, as an identity provider publishes it.
const issuerKeys = await generateKeyPair("ES256");
const strangerKeys = await generateKeyPair("ES256");
const jwks = JSON.stringify({ keys: [{ ...(await exportJWK(issuerKeys.publicKey)), kid: "k1", alg: "ES256", use: "sig" }] });
let jwksFetches = 0;
const jwksServer: Server = createServer((_req, res) => {
  jwksFetches += 1;
  res.writeHead(200, { "content-type": "application/json" }).end(jwks);
});
await new Promise<void>((resolve) => jwksServer.listen(0, "127.0.0.1", resolve));
const jwksUrl = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}/.well-known/jwks.json`;

const hsAgent = await serveWith({ MANIFOLD_AUTH_JWT_SECRET: SECRET, MANIFOLD_AUTH_ISSUER: ISSUER, MANIFOLD_AUTH_AUDIENCE: AUDIENCE });
const jwksAgent = await serveWith({ MANIFOLD_AUTH_JWKS_URL: jwksUrl, MANIFOLD_AUTH_ISSUER: ISSUER, MANIFOLD_AUTH_AUDIENCE: AUDIENCE });
const openAgent = await serveWith({});
const gatewayAgent = await serveWith({ MANIFOLD_TRUST_IDENTITY_HEADERS: "true" });

test.after(async () => {
  await Promise.all([hsAgent.close(), jwksAgent.close(), openAgent.close(), gatewayAgent.close()]);
  await new Promise((resolve) => jwksServer.close(resolve));
});

function assertUnauthorized(reply: { status: number; body: any; text: string; challenge: string | null }, what: string): void {
  assert.is(reply.status, 401, `${what}: ${reply.text}`);
  assert.is(reply.body.success, false);
  assert.is(reply.body.error.code, "UNAUTHORIZED", what);
  assert.is(reply.challenge, "Bearer", `${what}: WWW-Authenticate`);
  assert.not.match(reply.text, /at .*\.ts:\d+|JWS|JWT[A-Z]|jose/i, `${what}: no stack or library internals`);
}

test("HS256: a verified token's subject owns the sessions it makes; bad signature, issuer, audience or expiry is 401", async () => {
  const alice = await hs({ sub: "alice" });
  const made = await call(hsAgent.url, "POST", "/chat/session", { token: alice, body: {} });
  assert.is(made.status, 200, made.text);
  const listed = await call(hsAgent.url, "GET", "/chat/sessions", { token: alice });
  assert.equal(
    listed.body.sessions.map((s: { id: string }) => s.id),
    [made.body.session_id],
  );
  const bob = await hs({ sub: "bob" });
  assert.equal((await call(hsAgent.url, "GET", "/chat/sessions", { token: bob })).body.sessions, [], "bob sees none of alice's");

  const now = Math.floor(Date.now() / 1000);
  const bad: [string, string][] = [
    ["bad signature", await hs({}, "another-secret-another-secret-another-secret")],
    ["wrong issuer", await hs({ iss: "https://evil.example.test" })],
    ["wrong audience", await hs({ aud: "someone-else" })],
    ["expired", await hs({ exp: now - 3600 })],
    ["not a JWT", "just-some-static-token"],
  ];
  for (const [what, token] of bad) {
    assertUnauthorized(await call(hsAgent.url, "GET", "/chat/sessions", { token }), `${what} (route)`);
    assertUnauthorized(await call(hsAgent.url, "POST", "/api/capabilities/trip_brief", { token, body: { destination: "Kyoto" } }), `${what} (capability)`);
  }
  assertUnauthorized(await call(hsAgent.url, "POST", "/chat/session", { body: {} }), "no token where JWTs are configured");
});

test("JWKS: a token signed by the issuer's published key is verified; another key is 401", async () => {
  const carol = await sign(issuerKeys.privateKey, "ES256", { sub: "carol" }, "k1");
  const made = await call(jwksAgent.url, "POST", "/chat/session", { token: carol, body: {} });
  assert.is(made.status, 200, made.text);
  const listed = await call(jwksAgent.url, "GET", "/chat/sessions", { token: carol });
  assert.equal(
    listed.body.sessions.map((s: { id: string }) => s.id),
    [made.body.session_id],
  );
  assert.ok(jwksFetches >= 1, "the key set was fetched from the issuer");
  const forged = await sign(strangerKeys.privateKey, "ES256", { sub: "carol" }, "k1");
  assertUnauthorized(await call(jwksAgent.url, "GET", "/chat/sessions", { token: forged }), "a stranger's key");
  const hmac = await hs({ sub: "carol" });
  assertUnauthorized(await call(jwksAgent.url, "GET", "/chat/sessions", { token: hmac }), "HS256 where only the JWKS is configured");
});

test("X-User-ID is ignored without a trusted gateway: the victim's sessions are not listed, read, retitled, deleted or streamed into", async () => {
  const victim = await hs({ sub: "victim" });
  const made = await call(hsAgent.url, "POST", "/chat/session", { token: victim, body: {} });
  const id = made.body.session_id as string;
  const attacker = await hs({ sub: "attacker" });
  for (const credentials of [{ headers: { "X-User-ID": "victim" }, token: attacker }, { headers: { "X-User-ID": "victim" } }]) {
    const who = credentials.token === undefined ? "no token" : "another user's token";
    const list = await call(hsAgent.url, "GET", "/chat/sessions", credentials);
    assert.ok(list.status === 401 || list.body.sessions.length === 0, `${who}: list`);
    assert.is((await call(hsAgent.url, "GET", `/chat/session/${id}`, credentials)).status, credentials.token ? 404 : 401, `${who}: read`);
    assert.is((await call(hsAgent.url, "GET", `/chat/session/${id}/history`, credentials)).status, credentials.token ? 404 : 401, `${who}: history`);
    assert.is(
      (await call(hsAgent.url, "PUT", `/chat/session/${id}/title`, { ...credentials, body: { title: "pwned" } })).status,
      credentials.token ? 404 : 401,
    );
    assert.is((await call(hsAgent.url, "POST", "/chat/session/delete", { ...credentials, body: { session_id: id } })).status, credentials.token ? 404 : 401);
  }
  const streamed = await postSse(
    `${hsAgent.url}/chat/stream`,
    { session_id: id, message: "hello" },
    { headers: { "X-User-ID": "victim", authorization: `Bearer ${attacker}` } },
  );
  assert.equal(streamed.events[0]?.data["created"], true, "the attacker's turn goes into a new session of its own");
  assert.is.not(streamed.events[0]?.data["session_id"], id);

  const own = await call(hsAgent.url, "GET", `/chat/session/${id}/history`, { token: victim });
  assert.is(own.status, 200);
  assert.is(own.body.count, 0, "nothing was appended to the victim's session");
  assert.equal(
    (await call(hsAgent.url, "GET", "/chat/sessions", { token: victim })).body.sessions.map((s: { title: string }) => s.title),
    [""],
    "not retitled, not deleted",
  );

  // With no authentication configured at all, X-User-ID still names nobody.
  const open = await call(openAgent.url, "POST", "/chat/session", { headers: { "X-User-ID": "victim" }, body: {} });
  assert.is(open.status, 200);
  assert.is((await call(openAgent.url, "GET", "/chat/sessions", { headers: { "X-User-ID": "victim" } })).status, 401, "an unproven caller lists nothing");
});

test("MANIFOLD_TRUST_IDENTITY_HEADERS=true: the gateway's X-User-ID is the identity, and still confines each user to their own", async () => {
  // The agents of this process share the embedded session store: names here are this test's own.
  const made = await call(gatewayAgent.url, "POST", "/chat/session", { headers: { "X-User-ID": "gw-user" }, body: {} });
  const id = made.body.session_id as string;
  const mine = await call(gatewayAgent.url, "GET", "/chat/sessions", { headers: { "X-User-ID": "gw-user" } });
  assert.equal(
    mine.body.sessions.map((s: { id: string }) => s.id),
    [id],
  );
  assert.equal((await call(gatewayAgent.url, "GET", "/chat/sessions", { headers: { "X-User-ID": "gw-other" } })).body.sessions, []);
  assert.is((await call(gatewayAgent.url, "GET", `/chat/session/${id}`, { headers: { "X-User-ID": "gw-other" } })).status, 404);
  assert.is((await call(gatewayAgent.url, "GET", `/chat/session/${id}`, { headers: { "X-User-ID": "gw-user" } })).status, 200);
  assert.is((await call(gatewayAgent.url, "GET", "/chat/sessions", { headers: { "X-User-ID": "bad user{}" } })).status, 400);
});

test.run();
