/**
 * The Memory view's sources and the new views' routes as a browser sees them: the episode stores
 * the dashboard opens per domain are shared by concurrent requests and all closed, even while the
 * oldest are evicted; the domains offered by default are the trusted agents' names (a forged record
 * adds none); and no route of the Skills or Memory view answers another origin's script, even one
 * the dashboard's MANIFOLD_CORS_ORIGINS lists (facts are personal data), while an open route does.
 */
import { randomBytes } from "node:crypto";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createSessionStore } from "../../runtime/chat/index.js";
import { serveDashboard } from "../../runtime/dashboard/index.js";
import { createMemorySources } from "../../runtime/dashboard/memory.js";
import { createRegistry } from "../../runtime/discovery/index.js";
import { createEpisodeStore, type EpisodeStore } from "../../runtime/memory/episodic/store/index.js";
import { createFactStore } from "../../runtime/memory/index.js";
import { createStore } from "../../runtime/store/index.js";
import { registration, request } from "./support.js";

const quiet = () => {};

test("episode stores: concurrent requests for a new domain share one, and every store opened is closed, evictions included", async () => {
  const env = { MANIFOLD_REDIS_NAMESPACE: `dash-open-${randomBytes(4).toString("hex")}` };
  const store = createStore({ env });
  const sessions = createSessionStore({ store, env });
  const facts = createFactStore({ store, env });
  const opened: EpisodeStore[] = [];
  const closed = new Set<EpisodeStore>();
  const openEpisodes = (domain: string): EpisodeStore => {
    const real = createEpisodeStore({ store, env, domain });
    const counted: EpisodeStore = {
      ...real,
      close: async () => {
        closed.add(counted);
        await real.close();
      },
    };
    opened.push(counted);
    return counted;
  };
  // More domains than the sources keep open (40), so the last ones evict the oldest.
  const configured = Array.from({ length: 45 }, (_, i) => `domain-${i}`);
  const memory = createMemorySources({ store, sessions, facts, openEpisodes, configured, agents: async () => [] });
  try {
    for (const domain of configured.slice(0, 40)) await memory.episodes(domain);
    const [a, b] = await Promise.all([memory.episodes("domain-40"), memory.episodes("domain-40")]);
    assert.is(a, b, "one store for one domain");
    const [c, d, e] = await Promise.all([memory.episodes("domain-41"), memory.episodes("domain-42"), memory.episodes("domain-41")]);
    assert.is(c, e);
    assert.is.not(c, d);
    assert.is(opened.length, 43, "each domain opened once");
    assert.is(closed.size, 3, "the three oldest evicted and closed");
  } finally {
    await memory.close();
    await sessions.close();
    await facts.close();
    await store.close();
  }
  assert.is(closed.size, opened.length, "nothing opened is left unclosed");
});

test("with MANIFOLD_REGISTRY_KEY the domains offered by default are the verified agents' names: a forged record adds none", async () => {
  const env = { MANIFOLD_REDIS_NAMESPACE: `dash-trust-${randomBytes(4).toString("hex")}`, MANIFOLD_REGISTRY_KEY: randomBytes(32).toString("hex") };
  const store = createStore({ env });
  const signed = createRegistry({ store, env, cache: false });
  const raw = createRegistry({ store, cache: false, key: false });
  await signed.register(registration({ name: "travel-agent", type: "agent" }));
  await raw.register(registration({ name: "aaa-forged-agent", type: "agent" }));
  const dashboard = await serveDashboard({ port: 0, handleSignals: false, log: quiet, env });
  try {
    assert.equal((await request(`${dashboard.url}/api/memory/domains`)).body, { domains: ["travel-agent"], source: "registry" });
    assert.is((await request(`${dashboard.url}/api/memory/episodes?domain=aaa-forged-agent`)).status, 404);
  } finally {
    await dashboard.close();
    await signed.close();
    await raw.close();
    await store.close();
  }
});

test("no route of the Skills or Memory view answers another origin's script, even one MANIFOLD_CORS_ORIGINS lists", async () => {
  const origin = "http://app.example.test";
  const env = { MANIFOLD_REDIS_NAMESPACE: `dash-cors-${randomBytes(4).toString("hex")}`, MANIFOLD_CORS_ORIGINS: origin };
  const store = createStore({ env });
  const registry = createRegistry({ store, cache: false });
  await registry.register(registration({ name: "travel-agent", type: "agent" }));
  const dashboard = await serveDashboard({ port: 0, handleSignals: false, log: quiet, env });
  const fromOrigin = (path: string) => request(`${dashboard.url}${path}`, { headers: { origin } });
  try {
    // The control: an open route echoes the listed origin, so a missing header below means the route withheld it.
    assert.is((await fromOrigin("/api/services")).headers.get("access-control-allow-origin"), origin);
    const paths = [
      "/api/skills",
      "/api/skills/registry",
      "/api/skills/runs?namespace=travel&name=packing-advice",
      "/api/memory/users",
      "/api/memory/facts?user=ada",
      "/api/memory/sessions?user=ada",
      "/api/memory/domains",
      "/api/memory/episodes",
      "/api/memory/knowledge",
    ];
    for (const path of paths) {
      const reply = await fromOrigin(path);
      assert.is(reply.status, 200, `${path}: ${JSON.stringify(reply.body)}`);
      assert.is(reply.headers.get("access-control-allow-origin"), null, path);
    }
  } finally {
    await dashboard.close();
    await registry.close();
    await store.close();
  }
});

test.run();
