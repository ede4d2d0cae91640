/**
 * The Skills and Memory views' API over real stores, on the embedded store and on a real Redis,
 * seeded through the runtime's own factories (skill registry, execution records, user facts, chat
 * sessions, episodes): skills with their versions, pin, active version and the runs they shaped; a
 * user's facts (source, previous value) and summary; users listed from the facts, also on the
 * embedded store; a domain's episodes newest first, paged and by entity, its digest and knowledge;
 * domains from MANIFOLD_VIEWER_MEMORY_DOMAINS or else the registered agents; bad input refused with
 * stable codes; no fact value in the dashboard's log.
 */
import { randomBytes } from "node:crypto";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createSessionStore } from "../../runtime/chat/index.js";
import { serveDashboard, type RunningDashboard } from "../../runtime/dashboard/index.js";
import { createRegistry } from "../../runtime/discovery/index.js";
import { createEpisodeStore, type Episode } from "../../runtime/memory/episodic/store/index.js";
import { createFactStore, type Fact } from "../../runtime/memory/index.js";
import { createExecutionStore, type ExecutionRecord } from "../../runtime/orchestration/index.js";
import { createSkillStore, type SkillVersionInput } from "../../runtime/skills/store/index.js";
import { createStore, type Store } from "../../runtime/store/index.js";
import { startRedisServer, type RedisServer } from "../support/redis.js";
import { get, registration } from "./support.js";

const USER = "ada@example.com";
/** A value that must reach the page's API and never the dashboard's log. */
const SECRET_VALUE = "vegan-since-2019-private";
const DOMAIN = "trip-agent";

let redis: RedisServer;

test.before(async () => {
  redis = await startRedisServer();
});

test.after(async () => {
  await redis?.close();
});

const skill = (name: string, version: string, description = `${name} for travellers`): SkillVersionInput => ({
  namespace: "travel",
  name,
  version,
  description,
  instructions: `# ${name} ${version}\nFollow these steps.`,
  resources: name === "packing-advice" ? [{ path: "references/checklist.md", bytes: 12, text: "- passport\n" }] : [],
});

function run(planId: string, started: number, skills: unknown): ExecutionRecord {
  return {
    plan_id: planId,
    request_id: `req-${planId}`,
    mode: "natural",
    status: "success",
    steps: [],
    hooks: [],
    context: { skills },
    started_at: new Date(started).toISOString(),
    finished_at: new Date(started + 10).toISOString(),
  };
}

function fact(key: string, value: string, at: string, extra: Partial<Fact> = {}): Fact {
  return { key, value, source: { session_id: "0b8c5b6e-3f0a-4b7e-9d51-2a8f3c1e7d90", message_id: "m-1" }, created_at: at, updated_at: at, ...extra };
}

function episode(index: number, base: number): Episode {
  const ms = base + index * 1000;
  return {
    id: `${String(ms).padStart(13, "0")}-${randomBytes(8).toString("hex")}`,
    domain: DOMAIN,
    request_id: `req-episode-${index}`,
    user: USER,
    status: index % 5 === 0 ? "failed" : "success",
    entities: [index % 2 === 0 ? "city:lisbon" : "city:kyoto"],
    events: [
      { kind: "request", text: `trip question ${index}` },
      { kind: "step", capability: "weather-service.get_current_weather", status: "completed", text: "x".repeat(450) },
    ],
    summary: `Episode ${index}: weather looked up`,
    summary_outcome: "complete",
    created_at: new Date(ms).toISOString(),
  };
}

async function seed(store: Store, env: Record<string, string>): Promise<string[]> {
  const skills = createSkillStore({ store, env });
  await skills.publish(skill("packing-advice", "1.0.0"));
  await skills.publish(skill("packing-advice", "1.1.0"));
  await skills.pin("travel", "packing-advice", "1.0.0");
  await skills.publish(skill("local-customs", "1.0.0"));
  await skills.publish(skill("local-customs", "1.1.0"));
  await skills.retire("travel", "local-customs", "1.0.0");

  const executions = createExecutionStore({ store, env });
  const now = Date.now();
  const packing = { namespace: "travel", name: "packing-advice", version: "1.0.0", digest: "d1", resources: ["references/checklist.md"] };
  const customs = { namespace: "travel", name: "local-customs", version: "1.1.0", digest: "d2", resources: [] };
  await executions.save(run("natural-older", now - 5000, [customs]));
  await executions.save(run("natural-newer", now - 1000, [packing, customs]));
  // Chosen but over the skills budget: it did not shape the run.
  await executions.save(run("natural-left-out", now - 500, [{ ...customs, left_out: "budget" }]));
  await executions.save(run("natural-odd", now - 400, "not a list"));

  const facts = createFactStore({ store, env });
  const t0 = new Date(now - 60_000).toISOString();
  const t1 = new Date(now - 30_000).toISOString();
  await facts.put(USER, fact("home_city", "Lisbon", t0));
  await facts.put(USER, fact("diet", SECRET_VALUE, t1, { created_at: t0, previous: "vegetarian" }));
  const revision = await facts.revision(USER);
  await facts.setSummary(USER, { text: "Ada lives in Lisbon and eats vegan.", revision, updated_at: t1 });
  await facts.put("agent:planner", fact("home_city", "Oslo", t0));

  const sessions = createSessionStore({ store, env });
  await sessions.create({ id: "1b8c5b6e-3f0a-4b7e-9d51-2a8f3c1e7d91", userId: "bob", metadata: {}, now });

  const episodes = createEpisodeStore({ store, env, domain: DOMAIN });
  const base = now - 100_000;
  const appended: string[] = [];
  for (let i = 0; i < 25; i += 1) {
    const e = episode(i, base);
    await episodes.append(e);
    appended.push(e.id);
  }
  await episodes.setDigest(
    { text: "25 trips planned; Lisbon and Kyoto weather.", through: appended.at(-1)!, episodes: 25, updated_at: new Date(now).toISOString() },
    undefined,
  );
  const claimed = await episodes.claimForReflection("reflect-0123abcd", new Date(now).toISOString(), 4);
  const lisbon = claimed.filter((e) => e.entities.includes("city:lisbon")).map((e) => e.id);
  await episodes.completeReflection(
    "reflect-0123abcd",
    claimed.map((e) => e.id),
    [
      {
        id: `${String(now).padStart(13, "0")}-${randomBytes(8).toString("hex")}`,
        domain: DOMAIN,
        entity: "city:lisbon",
        text: "Lisbon trips ask for the weather first.",
        episode_ids: lisbon,
        pass_id: "reflect-0123abcd",
        created_at: new Date(now).toISOString(),
      },
    ],
  );
  if (store.kind === "redis") {
    // The embedded adapters are the store's slots; the Redis ones hold their own state and are closed here.
    for (const opened of [skills, executions, facts, sessions, episodes] as { close(): Promise<void> }[]) await opened.close();
  }
  return appended.reverse();
}

interface Setup {
  readonly dashboard: RunningDashboard;
  readonly store: Store;
  readonly env: Record<string, string>;
  readonly newestFirst: string[];
  readonly logs: string[];
  close(): Promise<void>;
}

async function setUp(kind: "memory" | "redis", extra: Record<string, string> = {}): Promise<Setup> {
  const namespace = `dash-${kind}-${randomBytes(4).toString("hex")}`;
  const env = {
    MANIFOLD_REDIS_NAMESPACE: namespace,
    MANIFOLD_EXECUTION_DEBUG_STORE_ENABLED: "true",
    ...(kind === "redis" ? { REDIS_URL: redis.url } : {}),
    ...extra,
  };
  const store = createStore({ env });
  const registry = createRegistry({ store, cache: false });
  await registry.register(registration({ name: DOMAIN, type: "agent" }));
  const newestFirst = await seed(store, env);
  const logs: string[] = [];
  // The dashboard opens its own store from the same environment, as `manifold dashboard` does.
  const dashboard = await serveDashboard({ port: 0, handleSignals: false, log: (line: string) => void logs.push(line), env });
  return {
    dashboard,
    store,
    env,
    newestFirst,
    logs,
    close: async () => {
      await dashboard.close();
      await registry.close();
      await store.close();
    },
  };
}

for (const kind of ["memory", "redis"] as const) {
  test(`${kind}: the skill registry with versions, pin, active version and the runs each version shaped`, async () => {
    const { dashboard, close } = await setUp(kind);
    try {
      const reply = await get(`${dashboard.url}/api/skills/registry`);
      assert.is(reply.status, 200, JSON.stringify(reply.body));
      assert.is(reply.headers.get("access-control-allow-origin"), null);
      assert.equal(reply.body.runs, { enabled: true, scanned: 4, limit: 200 });
      const byName = new Map<string, any>(reply.body.skills.map((s: any) => [`${s.namespace}/${s.name}`, s]));
      assert.equal([...byName.keys()], ["travel/local-customs", "travel/packing-advice"]);
      const packing = byName.get("travel/packing-advice");
      assert.equal([packing.active, packing.pinned], ["1.0.0", "1.0.0"], "the pin wins over the newer version");
      assert.equal(
        packing.versions.map((v: any) => [v.version, v.state, v.pinned, v.run_count]),
        [
          ["1.1.0", "published", false, 0],
          ["1.0.0", "active", true, 1],
        ],
      );
      assert.equal(
        packing.versions[1].runs.map((r: any) => [r.plan_id, r.request_id, r.resources]),
        [["natural-newer", "req-natural-newer", ["references/checklist.md"]]],
      );
      const customs = byName.get("travel/local-customs");
      assert.equal([customs.active, customs.pinned], ["1.1.0", undefined]);
      assert.equal(
        customs.versions.map((v: any) => [v.version, v.state, v.runs.map((r: any) => r.plan_id)]),
        [
          ["1.1.0", "active", ["natural-newer", "natural-older"]],
          ["1.0.0", "retired", []],
        ],
        "newest run first; the run that left it out over the budget is not one it shaped",
      );
      assert.not.match(JSON.stringify(reply.body), /Follow these steps|passport/, "no skill body in the view's API");

      const runs = (await get(`${dashboard.url}/api/skills/runs?namespace=travel&name=local-customs&version=1.1.0`)).body;
      assert.equal(
        runs.runs.map((r: any) => r.plan_id),
        ["natural-newer", "natural-older"],
      );
      const none = (await get(`${dashboard.url}/api/skills/runs?namespace=travel&name=packing-advice&version=1.1.0`)).body;
      assert.equal(none.runs, []);
      const bad = await get(`${dashboard.url}/api/skills/runs?namespace=travel`);
      assert.equal([bad.status, bad.body.error.code, bad.body.error.details[0].pointer], [400, "INVALID_INPUT", "/name"]);
      assert.is((await get(`${dashboard.url}/api/skills/registry?namespace=${encodeURIComponent("a b")}`)).status, 400);

      // The Skills view's link opens the Execution DAG on that run.
      const one = (await get(`${dashboard.url}/api/executions?plan_id=natural-older`)).body;
      assert.equal(
        one.executions.map((e: any) => e.plan_id),
        ["natural-older"],
      );
    } finally {
      await close();
    }
  });

  test(`${kind}: a user's facts with their source and replaced value, the summary, sessions; users listed from the facts`, async () => {
    const { dashboard, logs, close } = await setUp(kind);
    try {
      const users = (await get(`${dashboard.url}/api/memory/users`)).body;
      const expected = kind === "redis" ? ["ada@example.com", "agent:planner", "bob"] : ["ada@example.com", "agent:planner"];
      assert.equal(users.users, expected, "facts' users, and on Redis the chat sessions' too");
      assert.is(users.note, undefined, "the embedded store lists its facts' users: no 'enter a user id' note");

      const reply = await get(`${dashboard.url}/api/memory/facts?user=${encodeURIComponent(USER)}`);
      assert.is(reply.status, 200);
      assert.is(reply.headers.get("access-control-allow-origin"), null, "facts are for the dashboard's own pages");
      const { facts, summary, summary_stale } = reply.body;
      assert.equal(
        facts.map((f: any) => [f.key, f.value, f.previous, f.source.session_id]),
        [
          ["diet", SECRET_VALUE, "vegetarian", "0b8c5b6e-3f0a-4b7e-9d51-2a8f3c1e7d90"],
          ["home_city", "Lisbon", undefined, "0b8c5b6e-3f0a-4b7e-9d51-2a8f3c1e7d90"],
        ],
      );
      assert.is(summary.text, "Ada lives in Lisbon and eats vegan.");
      assert.is(summary_stale, false);
      const nobody = (await get(`${dashboard.url}/api/memory/facts?user=nobody`)).body;
      assert.equal([nobody.facts, nobody.summary], [[], null]);
      const bad = await get(`${dashboard.url}/api/memory/facts?user=${encodeURIComponent("a\u0000b")}`);
      assert.equal([bad.status, bad.body.error.code], [400, "INVALID_INPUT"]);
      assert.is((await get(`${dashboard.url}/api/memory/facts`)).status, 400, "a user is required");
      const bob = (await get(`${dashboard.url}/api/memory/sessions?user=bob`)).body;
      assert.equal(
        bob.sessions.map((s: any) => s.id),
        ["1b8c5b6e-3f0a-4b7e-9d51-2a8f3c1e7d91"],
      );
      assert.not.match(logs.join("\n"), new RegExp(SECRET_VALUE), "a fact's value is never logged");
    } finally {
      await close();
    }
  });

  test(`${kind}: a domain's episodes newest first, paged and by entity, its digest and knowledge; domains from the registry`, async () => {
    const { dashboard, newestFirst, close } = await setUp(kind);
    try {
      assert.equal((await get(`${dashboard.url}/api/memory/domains`)).body, { domains: [DOMAIN], source: "registry" });
      const first = (await get(`${dashboard.url}/api/memory/episodes?limit=10`)).body;
      assert.is(first.domain, DOMAIN, "the first domain is the default");
      assert.equal(
        first.episodes.map((e: any) => e.id),
        newestFirst.slice(0, 10),
      );
      assert.is(first.more, true);
      assert.is(first.episodes[0].events[1].text.length, 301, "event texts are previews in a list");
      const third = (await get(`${dashboard.url}/api/memory/episodes?domain=${DOMAIN}&limit=10&offset=20`)).body;
      assert.equal(
        third.episodes.map((e: any) => e.id),
        newestFirst.slice(20),
      );
      assert.is(third.more, false);
      const lisbon = (await get(`${dashboard.url}/api/memory/episodes?entity=City:Lisbon&limit=50`)).body;
      assert.is(lisbon.entity, "city:lisbon");
      assert.is(lisbon.episodes.length, 13);
      assert.ok(lisbon.episodes.every((e: any) => e.entities.includes("city:lisbon")));
      const whole = (await get(`${dashboard.url}/api/memory/episodes/${newestFirst[0]}?domain=${DOMAIN}`)).body;
      assert.is(whole.episode.events[1].text.length, 450);
      assert.is((await get(`${dashboard.url}/api/memory/episodes/not-an-id`)).status, 404);

      const knowledge = (await get(`${dashboard.url}/api/memory/knowledge?domain=${DOMAIN}`)).body;
      assert.equal(knowledge.digest.text, "25 trips planned; Lisbon and Kyoto weather.");
      assert.equal(knowledge.digest.through, newestFirst[0]);
      assert.equal(
        knowledge.knowledge.map((k: any) => [k.entity, k.text, k.pass_id]),
        [["city:lisbon", "Lisbon trips ask for the weather first.", "reflect-0123abcd"]],
      );
      assert.equal((await get(`${dashboard.url}/api/memory/knowledge?entity=city:kyoto`)).body.knowledge, []);

      const unknown = await get(`${dashboard.url}/api/memory/episodes?domain=elsewhere`);
      assert.equal([unknown.status, unknown.body.error.code], [404, "NOT_FOUND"]);
      assert.match(unknown.body.error.message, /offered: trip-agent/);
      assert.is((await get(`${dashboard.url}/api/memory/episodes?offset=500`)).status, 400, "pages lie within the newest 200");
      assert.is((await get(`${dashboard.url}/api/memory/episodes?limit=51`)).status, 400);
    } finally {
      await close();
    }
  });
}

test("the skill registry's answer is bounded: a page of skills filtered by namespace/name text, the newest versions with the pinned one", async () => {
  const { dashboard, store, env, close } = await setUp("redis");
  const skills = createSkillStore({ store, env });
  try {
    for (let minor = 0; minor < 23; minor += 1) await skills.publish(skill("many-versions", `2.${minor}.0`));
    await skills.pin("travel", "many-versions", "2.0.0");
    const all = (await get(`${dashboard.url}/api/skills/registry`)).body;
    assert.equal([all.total, all.truncated], [3, false]);
    const many = all.skills.find((s: any) => s.name === "many-versions");
    assert.is(many.version_count, 23);
    assert.is(many.versions.length, 20, "at most 20 versions per skill");
    assert.equal(many.versions.map((v: any) => v.version).slice(0, 2), ["2.22.0", "2.21.0"], "newest first");
    assert.equal(many.versions.at(-1).version, "2.0.0", "the pinned version is listed even when older than the newest 20");
    assert.is(many.versions.at(-1).state, "active");

    const found = (await get(`${dashboard.url}/api/skills/registry?q=${encodeURIComponent(" Travel/LOCAL")}`)).body;
    assert.equal(
      found.skills.map((s: any) => s.name),
      ["local-customs"],
    );
    assert.equal([found.q, found.total], ["travel/local", 1]);
    const page = (await get(`${dashboard.url}/api/skills/registry?limit=1`)).body;
    assert.equal([page.skills.length, page.total, page.truncated], [1, 3, true]);
    assert.is((await get(`${dashboard.url}/api/skills/registry?limit=1001`)).status, 400);
    assert.is((await get(`${dashboard.url}/api/skills/registry?q=${"a".repeat(130)}`)).status, 400);
  } finally {
    await skills.close();
    await close();
  }
});

test("MANIFOLD_VIEWER_MEMORY_DOMAINS names the agent memory domains, whatever is registered", async () => {
  const { dashboard, close } = await setUp("redis", { MANIFOLD_VIEWER_MEMORY_DOMAINS: "bookings, trip-agent" });
  try {
    assert.equal((await get(`${dashboard.url}/api/memory/domains`)).body, { domains: ["bookings", "trip-agent"], source: "configured" });
    const empty = (await get(`${dashboard.url}/api/memory/episodes`)).body;
    assert.equal([empty.domain, empty.episodes], ["bookings", []], "the first configured domain is the default");
    assert.is((await get(`${dashboard.url}/api/memory/episodes?domain=trip-agent&limit=1`)).body.episodes.length, 1);
    assert.equal((await get(`${dashboard.url}/api/config`)).body.memory_domains, ["bookings", "trip-agent"]);
  } finally {
    await close();
  }
});

test.run();
