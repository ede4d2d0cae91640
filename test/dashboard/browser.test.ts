/**
 * The dashboard in headless Chromium (playwright-core, /usr/bin/chromium) over a real travel network
 * on a real Redis (see network.ts and seed.ts): every view loads the network's data, every filter
 * changes what is shown, Approve on a non_streaming checkpoint resumes its run, the buttons of a
 * streaming one are disabled with the reason, the API browser lists every service, views refresh
 * live, and a store switched off is said so. The Skills and Memory views show what the travel agent
 * itself made (seedMemory): its bundled skills and the runs they shaped, the facts extraction kept
 * from chat turns, the episodes and digest of its runs. Screenshots: test-output/dashboard/*.png.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type Page } from "playwright-core";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { serveComponent } from "../../runtime/component/index.js";
import { serveDashboard } from "../../runtime/dashboard/index.js";
import { createRegistry } from "../../runtime/discovery/index.js";
import { createLlmDebugStore, type LlmInteraction } from "../../runtime/llm/index.js";
import { createEpisodeStore } from "../../runtime/memory/episodic/store/index.js";
import { createFactStore } from "../../runtime/memory/index.js";
import { createSkillStore } from "../../runtime/skills/store/index.js";
import { createStore } from "../../runtime/store/index.js";
import { backgroundCall, startNetwork, TRAVEL, type Network } from "./network.js";
import { DIGEST, PROFILE, seed, seedMemory, USER, type Seeded, type SeededMemory } from "./seed.js";
import { eventually } from "../support/wait.js";
import { get, post, registration } from "./support.js";
import { tool, toolSpec } from "../support/specs.js";

const SHOTS = fileURLToPath(new URL("../../test-output/dashboard/", import.meta.url));
const WAIT_MS = 15_000;
let network: Network;
let seeded: Seeded;
let seededMemory: SeededMemory;
let browser: Browser;
let page: Page;
const problems: string[] = [];

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: `${SHOTS}${name}.png`, fullPage: true });
}

/** Opens a view by its link (as a user would after the first page) and waits until it has rendered. */
async function open(view: string, filter: string): Promise<void> {
  await page.goto(`${network.dashboard}/#/${view}`);
  await page.waitForSelector(`#view[data-loaded="${view}:${filter}"]`, { timeout: WAIT_MS });
}

/** Clicks a filter and waits for the view to render with it. */
async function filter(view: string, id: string): Promise<void> {
  await page.click(`#filters [data-filter="${id}"]`);
  await page.waitForSelector(`#view[data-loaded="${view}:${id}"]`, { timeout: WAIT_MS });
}

/** An element's text (textContent: what the DOM holds, whatever the layout). */
const text = async (locator: { textContent(): Promise<string | null> }): Promise<string> => (await locator.textContent()) ?? "";

const attributes = (selector: string, name: string): Promise<string[]> =>
  page.$$eval(selector, (elements, attribute) => elements.map((e) => e.getAttribute(attribute) ?? ""), name);

test.before(async () => {
  mkdirSync(SHOTS, { recursive: true });
  network = await startNetwork();
  seeded = await seed(network);
  seededMemory = await seedMemory(network);
  browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
  });
  page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  page.setDefaultTimeout(WAIT_MS);
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("console", (message) => {
    // A failed load is reported with its URL by the response listener below.
    if (message.type() === "error" && !message.text().startsWith("Failed to load resource")) problems.push(`console: ${message.text()}`);
  });
  page.on("response", (response) => {
    if (response.status() >= 400) problems.push(`${response.status()} ${response.request().method()} ${response.url()}`);
  });
});

test.after(async () => {
  await browser?.close();
  await network?.close();
});

test("Registry: every running service with health and capabilities; Agents and Tools filter it; a new registration appears live and leaves live", async () => {
  await open("registry", "all");
  await eventually("five services", async () => (await page.locator('[data-testid="service-row"]').count()) === TRAVEL.length);
  assert.equal((await attributes('[data-testid="service-row"]', "data-name")).sort(), [...TRAVEL].sort());
  assert.equal(await attributes('[data-testid="service-row"]', "data-health"), Array(TRAVEL.length).fill("healthy"));
  assert.equal(
    await attributes('[data-testid="service-row"]', "data-verification"),
    Array(TRAVEL.length).fill("unsigned"),
    "no registry key: each record says so",
  );
  assert.match(await text(page.locator('[data-testid="registry-unsigned"]:visible')), /^registry is unsigned: .*MANIFOLD_REGISTRY_KEY/);
  assert.is(await page.locator('[data-testid="openapi-link"]').count(), TRAVEL.length, "each service links to its OpenAPI");
  assert.match(await text(page.locator('[data-name="country-info-service"]')), /warm_cache · internal/);
  await shot("registry");

  await filter("registry", "agents");
  assert.equal(await attributes('[data-testid="service-row"]', "data-name"), ["travel-agent"]);
  await filter("registry", "tools");
  assert.equal(await attributes('[data-testid="service-row"]', "data-type"), Array(TRAVEL.length - 1).fill("tool"));
  await filter("registry", "all");

  const store = createStore({ env: { REDIS_URL: network.redis.url } });
  const registry = createRegistry({ store, cache: false });
  const late = registration({ name: "late-service", health: "degraded" });
  try {
    await registry.register(late);
    await page.waitForSelector('[data-testid="service-row"][data-name="late-service"][data-health="degraded"]');
  } finally {
    await registry.unregister(late.id);
    await registry.close();
    await store.close();
  }
  // It leaves live too; waiting for that also leaves the dashboard's registry view reloaded without it, so a
  // later test's first read (served from that view, reloaded behind the request) does not see it.
  await page.waitForSelector('[data-testid="service-row"][data-name="late-service"]', { state: "detached" });
});

test("the API browser lists every service and shows its OpenAPI document, from the dashboard's own origin", async () => {
  await page.goto(`${network.dashboard}/api-browser?service=currency-service`);
  await page.waitForSelector(".swagger-ui .info .title");
  const options = await page.$$eval(".swagger-ui .topbar select option", (elements) => elements.map((e) => e.textContent ?? ""));
  assert.equal(options.sort(), [...TRAVEL].sort());
  assert.match(await text(page.locator(".swagger-ui .info .title")), /currency-service/);
  await page.locator(".swagger-ui .opblock-summary-path", { hasText: "/api/capabilities/convert_currency" }).waitFor();
  await shot("api-browser");
  // "Try it out" calls the component from the dashboard's origin: the component allows it through
  // MANIFOLD_CORS_ORIGINS (network.ts), as `npm start` sets it; without it the browser blocks the read.
  const operation = page.locator(".swagger-ui .opblock", { has: page.locator(".opblock-summary-path", { hasText: "/api/capabilities/convert_currency" }) });
  await operation.locator(".opblock-summary").click();
  await operation.locator(".try-out__btn").click();
  await operation.locator(".execute").click();
  const status = operation.locator(".live-responses-table tbody .response-col_status").first();
  await status.waitFor({ timeout: WAIT_MS });
  assert.is((await status.textContent())?.trim(), "200", (await operation.locator(".live-responses-table").textContent()) ?? "");
});

test("HITL Interrupted: type filters; streaming buttons disabled with the reason; Approve resumes a non_streaming run", async () => {
  await open("hitl", "all");
  const ids = async () => (await attributes('[data-testid="checkpoint"]', "data-id")).sort();
  const all = [seeded.customCheckpoint, seeded.errorCheckpoint, seeded.naturalCheckpoint, seeded.streamingCheckpoint].sort();
  await eventually("the four pending checkpoints", async () => JSON.stringify(await ids()) === JSON.stringify(all));

  const streaming = page.locator(`[data-testid="checkpoint"][data-id="${seeded.streamingCheckpoint}"]`);
  assert.is(await streaming.locator('[data-testid="approve"]').isDisabled(), true);
  assert.is(await streaming.locator('[data-testid="reject"]').isDisabled(), true);
  assert.match(
    await text(streaming.locator('[data-testid="disabled-reason"]')),
    /streaming checkpoint: only the client connected to its stream can resolve it/,
  );
  const natural = page.locator(`[data-testid="checkpoint"][data-id="${seeded.naturalCheckpoint}"]`);
  assert.is(await natural.locator('[data-testid="approve"]').isEnabled(), true);
  assert.is(await natural.getAttribute("data-mode"), "non_streaming");
  await shot("hitl");

  await filter("hitl", "error");
  assert.equal(await ids(), [seeded.errorCheckpoint]);
  await filter("hitl", "plan");
  assert.is(await page.locator('[data-testid="checkpoint"]').count(), 0);
  assert.match(await text(page.locator('[data-testid="empty"]')), /No run is waiting/);
  await filter("hitl", "step");
  assert.equal(await ids(), [seeded.customCheckpoint, seeded.naturalCheckpoint, seeded.streamingCheckpoint].sort());

  // The resumed run synthesises its answer: the model's reply is scripted before the click.
  network.llm.reply({ text: "40 EUR is about 34 GBP." });
  await natural.locator('input[aria-label="Reason"]').fill("checked the amount");
  await natural.locator('[data-testid="approve"]').click();
  const result = page.locator('[data-testid="action-result"]');
  await result.waitFor();
  assert.is(await result.getAttribute("data-outcome"), "resumed", await text(result));
  assert.match(await text(result), /40 EUR is about 34 GBP\./);
  await page.waitForSelector(`[data-testid="checkpoint"][data-id="${seeded.naturalCheckpoint}"]`, { state: "detached" });
  await shot("hitl-approved");

  const stored = await get(`${network.urls["travel-agent"]}/hitl/checkpoints/${seeded.naturalCheckpoint}`);
  assert.is(stored.body.status, "resumed", "the agent resumed it");
  assert.equal(stored.body.resolution.reason, "checked the amount");
  const refused = await post(`${network.dashboard}/api/hitl/command`, { checkpoint_id: seeded.streamingCheckpoint, action: "approve" });
  assert.is(refused.status, 409, "the API refuses what the buttons do not offer");
});

test("LLM Debug: All, Success, Errors and Grouped; each interaction's prompt, response, tokens and duration", async () => {
  await open("llm", "all");
  await eventually("four LLM records", async () => (await page.locator('[data-testid="llm-record"]').count()) >= 4);
  const statuses = () => attributes('[data-testid="llm-record"]', "data-status");
  assert.ok((await statuses()).includes("error") && (await statuses()).includes("success"));
  const first = page.locator('[data-testid="llm-record"][data-status="success"]').first();
  await first.locator("summary").click();
  const interaction = first.locator('[data-testid="interaction"]').first();
  assert.match(await text(interaction.locator('[data-testid="prompt"]')), /You plan calls to HTTP capabilities|Earlier in this conversation|\[system\]/);
  assert.match(await text(interaction.locator('[data-testid="tokens"]')), /^\d+ \+ \d+ = \d+ tokens$/);
  assert.match(await text(interaction), /\d+(\.\d+)? ms/);
  await shot("llm-debug");

  await filter("llm", "errors");
  assert.equal([...new Set(await statuses())], ["error"]);
  const errorRecord = page.locator('[data-testid="llm-record"]').first();
  await errorRecord.locator("summary").click();
  assert.match(await text(errorRecord), /LLM_ERROR/);
  assert.is(await text(errorRecord.locator('[data-testid="final"]')), "answered 502 LLM_ERROR", "how the request ended, marked by the agent");
  await filter("llm", "success");
  assert.equal([...new Set(await statuses())], ["success"]);
  await filter("llm", "grouped");
  // The approved run's synthesis was recorded under its own request id, grouped under the paused request's.
  const sizes = await page.$$eval('[data-testid="llm-group"]', (groups) => groups.map((g) => g.querySelectorAll('[data-testid="llm-record"]').length));
  assert.ok(sizes.length >= 3 && sizes.some((n) => n === 2), `group sizes ${JSON.stringify(sizes)}`);
  await shot("llm-debug-grouped");
});

test("Execution DAG: each run as its step graph with status and duration; status filters, Grouped and Flat; new runs appear live", async () => {
  await open("executions", "all");
  await page.waitForSelector('[data-testid="execution-group"]');
  const statuses = () => attributes('[data-testid="execution"]', "data-status");
  await eventually("success, failed and interrupted runs", async () => new Set(await statuses()).size === 3);
  const research = page.locator('[data-testid="execution"][data-status="success"]', { hasText: "travel-research" });
  assert.equal(
    await research
      .first()
      .locator('[data-testid="dag-node"]')
      .evaluateAll((nodes) => nodes.map((n) => n.getAttribute("data-step"))),
    ["geocode", "weather", "rates", "country"],
  );
  assert.match(
    (await research.first().locator('[data-testid="dag-node"][data-step="country"] text.state').textContent()) ?? "",
    /^completed · \d+(\.\d+)? ms$/,
  );
  // geocode → weather, rates, country (country reads geocode's output, a dependency gen adds); weather, rates → country.
  assert.equal(
    await research
      .first()
      .locator("path.edge")
      .evaluateAll((edges) => edges.map((e) => `${e.getAttribute("data-from")}>${e.getAttribute("data-to")}`).sort()),
    ["geocode>country", "geocode>rates", "geocode>weather", "rates>country", "weather>country"],
  );
  const paused = page.locator(`[data-testid="execution"]`, { hasText: seeded.customCheckpoint });
  assert.is(await paused.locator('[data-testid="dag-node"]').getAttribute("data-status"), "waiting_approval");
  assert.ok((await page.locator('[data-testid="execution-group"]').count()) >= 2, "grouped by conversation by default");
  await shot("executions");

  for (const status of ["success", "failed", "interrupted"]) {
    await filter("executions", status);
    assert.equal([...new Set(await statuses())], [status], status);
  }
  await filter("executions", "all");
  await page.click('#filters [data-layout="flat"]');
  await page.waitForSelector('#view [data-layout="flat"]');
  assert.is(await page.locator('[data-testid="execution-group"]').count(), 0);
  await shot("executions-flat");
  const before = await page.locator('[data-testid="execution"]').count();
  await post(`${network.urls["travel-agent"]}/orchestrate/travel-research`, { destination: "Lisbon" });
  await eventually("the new run, without a reload", async () => (await page.locator('[data-testid="execution"]').count()) === before + 1);
});

/** The scripted model's answers for a request the travel agent recovers: a country name where geocode_location wants its code. */
const RECOVERY = {
  plan: {
    continue: true,
    steps: [
      {
        step_id: "where",
        agent_name: "geocoding-service",
        depends_on: [],
        metadata: { capability: "geocode_location", parameters: { location: "Kyoto", country_hint: "Japan" } },
      },
    ],
  },
  analysis: { recoverable: true, reason: "country_hint takes the ISO 3166-1 alpha-2 code", parameters: { location: "Kyoto", country_hint: "JP" } },
  continuation: {
    steps: [
      {
        step_id: "weather",
        agent_name: "weather-service",
        depends_on: ["where"],
        metadata: { capability: "get_current_weather", parameters: { lat: "{{where.response.data.lat}}", lon: "{{where.response.data.lon}}" } },
      },
    ],
  },
  answer: "Kyoto is mild right now.",
};

test("end to end: the travel agent recovers from a tool's 400 and answers; the Execution DAG draws its phases and both rounds with their parameters, LLM Debug the error analysis", async () => {
  const { plan, analysis, continuation, answer } = RECOVERY;
  network.llm.reply({ text: JSON.stringify(plan) }, { text: JSON.stringify(analysis) }, { text: JSON.stringify(continuation) }, { text: answer });
  const seen = network.llm.requests.length;
  // Memory's background calls (the run's summary, the digest) come in their own time: only the request's own are in order.
  const own = () => network.llm.requests.slice(seen).filter((r) => backgroundCall(r.body) === undefined);
  const asked = await post(
    `${network.urls["travel-agent"]}/orchestrate/natural`,
    { request: "What is the weather in Kyoto, Japan?" },
    { "X-Manifold-Request-ID": "req-recovered" },
  );
  assert.is(asked.status, 200, JSON.stringify(asked.body));
  assert.is(asked.body.status, "completed");
  assert.is(asked.body.response, answer);
  assert.equal(
    own().map((r) => r.body.response_format?.json_schema?.name ?? "text"),
    ["routing_plan", "error_analysis", "routing_plan", "text"],
    "plan, the analysis of the 400, the continuation, the answer",
  );
  assert.match(JSON.stringify(own()[1]!.body.messages), /ISO 3166-1 alpha-2/, "the model was shown the tool's 400");

  // The execution record, as the dashboard serves it: geocode_location was called twice, once with each parameter set.
  const listed = await get(`${network.dashboard}/api/executions?limit=50`);
  const run = listed.body.executions.find((e: { request_id?: string }) => e.request_id === "req-recovered");
  assert.ok(run, "the run is recorded under its request id");
  const where = run.nodes.find((n: { step_id: string }) => n.step_id === "where");
  assert.equal(
    where.rounds.map((r: { status: string; attempts: number; parameters: string }) => [r.status, r.attempts, JSON.parse(r.parameters).country_hint]),
    [
      ["failed", 1, "Japan"],
      ["completed", 1, "JP"],
    ],
  );
  assert.equal(
    run.nodes.map((n: { step_id: string; phase: number; status: string }) => [n.step_id, n.phase, n.status]),
    [
      ["where", 1, "completed"],
      ["weather", 2, "completed"],
    ],
  );

  await open("executions", "all");
  const card = page.locator(`[data-testid="execution"][data-plan="${run.plan_id}"]`);
  await card.waitFor();
  assert.equal(await card.locator('[data-testid="dag-phase"]').evaluateAll((bands) => bands.map((b) => b.getAttribute("data-phase"))), ["1", "2"]);
  const node = card.locator('[data-testid="dag-node"][data-step="where"]');
  assert.equal([await node.getAttribute("data-phase"), await node.getAttribute("data-rounds")], ["1", "2"]);
  assert.match(await text(node.locator("text.state")), /^completed · .* · 2 rounds$/);
  assert.is(await card.locator('[data-testid="dag-node"][data-step="weather"]').getAttribute("data-phase"), "2");
  const rounds = card.locator('[data-testid="step-rounds"][data-step="where"] [data-testid="step-round"]');
  assert.equal(await rounds.evaluateAll((rows) => rows.map((r) => r.getAttribute("data-status"))), ["failed", "completed"]);
  assert.match(await text(rounds.nth(0)), /INVALID_INPUT: country_hint must be an ISO 3166-1 alpha-2 code.*retried by natural\.recovery/);
  assert.match(await text(rounds.nth(0).locator('[data-testid="round-parameters"]')), /"country_hint":"Japan"/);
  assert.match(await text(rounds.nth(1).locator('[data-testid="round-parameters"]')), /"country_hint":"JP"/);
  await card.scrollIntoViewIfNeeded();
  await shot("executions-recovered");

  // The LLM view keeps its filter while the page lives: the LLM Debug test left it on Grouped.
  await open("llm", "grouped");
  await filter("llm", "all");
  const record = page.locator('[data-testid="llm-record"][data-request="req-recovered"]');
  await record.locator("summary").click();
  // The run's own calls, then episodic memory's, recorded under the run's request as they come.
  const types = await record.locator('[data-testid="interaction"]').evaluateAll((items) => items.map((i) => i.getAttribute("data-type")));
  assert.equal(types.slice(0, 4), ["plan_generation", "error_analysis", "continuation_plan", "synthesis"]);
  assert.ok(
    types.slice(4).every((type) => ["event_summarization", "activity_compaction", "activity_compaction_incremental"].includes(type ?? "")),
    JSON.stringify(types),
  );
  const titles = await record.locator('[data-testid="interaction"] strong').evaluateAll((items) => items.map((t) => t.textContent));
  assert.equal(titles.slice(0, 4), ["1. plan", "2. error analysis", "3. continuation plan", "4. synthesis"]);
  if (types.includes("event_summarization")) assert.ok(titles.includes(`${types.indexOf("event_summarization") + 1}. run summary`), JSON.stringify(titles));
  const analysed = record.locator('[data-testid="interaction"]').nth(1);
  assert.match(await text(analysed.locator('[data-testid="prompt"]')), /Japan/);
  assert.match(await text(analysed.locator('[data-testid="response"]')), /"country_hint":"JP"/);
  await shot("llm-debug-recovered");
});

/** One recorded model call, as the natural run's recorder stores it (runtime/orchestration/natural/record.ts). */
function call(
  type: string,
  prompt_bytes: number | undefined,
  completion_tokens: number,
  duration_ms: number,
  prompt = `[user]\n${type} prompt`,
): LlmInteraction {
  return {
    type,
    category: "llm",
    started_at: new Date().toISOString(),
    duration_ms,
    prompt_tokens: 100,
    completion_tokens,
    total_tokens: 100 + completion_tokens,
    model: "gpt-scripted",
    attempt: 1,
    success: true,
    prompt,
    ...(prompt_bytes === undefined ? {} : { prompt_bytes }),
    response: `${type} answer`,
  };
}

test("LLM Debug at catalog scale: capability selection and distillation calls with their prompt sizes, and the record's total; markup stays text", async () => {
  const HOSTILE = `<img src="/llm-probe.png" onerror="window.__llm = 'ran'">`;
  const calls = [
    call("tiered_selection", 12_595, 42, 812.5),
    call("plan_generation", 3_072, 230, 1_500),
    call("result_distillation", 45_875, 180, 95),
    call("micro_resolution", 700, 12, 40, `[user]\n${HOSTILE}`),
    call(HOSTILE, undefined, 1, 2),
  ];
  const store = createLlmDebugStore({ env: { REDIS_URL: network.redis.url } });
  try {
    for (const interaction of calls) await store.record({ request_id: "req-catalog-scale", source_component: "travel-agent", interaction });
  } finally {
    await store.close();
  }
  await open("llm", "all");
  const record = page.locator('[data-testid="llm-record"][data-request="req-catalog-scale"]');
  await record.waitFor();
  const total = record.locator('[data-testid="prompt-total"]');
  assert.is(await text(total), "60.8 KB prompted", "12,595 + 3,072 + 45,875 + 700 bytes; the call without a size adds nothing");
  assert.is(await total.getAttribute("data-bytes"), "62242");
  await record.locator("summary").click();
  const items = record.locator('[data-testid="interaction"]');
  assert.equal(await items.evaluateAll((all) => all.map((i) => i.getAttribute("data-type"))), [...calls.map((c) => c.type)]);
  const titles = await items.locator("strong").evaluateAll((all) => all.map((t) => t.textContent));
  assert.equal(titles, ["1. capability selection", "2. plan", "3. distillation", "4. micro-resolution", `5. ${HOSTILE}`]);
  const sizes = await items.evaluateAll((all) => all.map((i) => i.querySelector('[data-testid="prompt-bytes"]')?.textContent ?? null));
  assert.equal(sizes, ["12.3 KB prompt", "3.0 KB prompt", "44.8 KB prompt", "700 B prompt", null], "a call recorded without its size shows none");
  assert.is(await text(items.nth(0).locator('[data-testid="tokens"]')), "100 + 42 = 142 tokens");
  assert.match(await text(items.nth(0)), /812\.5 ms/);
  assert.match(await text(items.nth(2)), /95 ms/);
  assert.match(await text(items.nth(2).locator('[data-testid="tokens"]')), /\+ 180 =/);
  assert.ok((await text(items.nth(3).locator('[data-testid="prompt"]'))).includes(HOSTILE), "the prompt is shown as it is");
  assert.is(await record.locator("img").count(), 0, "no element made from a type or a prompt");
  assert.is(await page.evaluate(() => (globalThis as unknown as { __llm?: string }).__llm), undefined, "no handler ran");
  await record.scrollIntoViewIfNeeded();
  await shot("llm-debug-catalog-scale");
});

test("Skills: the example's skills with their versions and pin, the runs they shaped linked to the Execution DAG; filtered by name; the planner's catalog", async () => {
  await page.goto(`${network.dashboard}/#/skills`);
  await page.waitForSelector('#view[data-loaded="skills:registry"]');
  const packing = page.locator('[data-testid="registry-skill"][data-skill="travel-agent/packing-advice"]');
  const customs = page.locator('[data-testid="registry-skill"][data-skill="travel-agent/local-customs"]');
  await packing.waitFor();
  assert.equal(await attributes('[data-testid="registry-skill"]', "data-skill"), ["travel-agent/local-customs", "travel-agent/packing-advice"]);
  assert.equal(
    [await packing.getAttribute("data-active"), await packing.getAttribute("data-pinned")],
    ["1.0.0", "1.0.0"],
    "pinned through the agent's admin API",
  );
  assert.match(await text(packing.locator("h3")), /uses 1\.0\.0.*pinned to 1\.0\.0/);
  assert.match(await text(packing), /What to pack for a trip/);
  assert.equal([await customs.getAttribute("data-active"), await customs.getAttribute("data-pinned")], ["1.1.0", ""]);
  assert.match(await text(customs.locator("h3")), /not pinned/);
  const version = customs.locator('[data-testid="skill-version"]');
  assert.equal([await version.getAttribute("data-version"), await version.getAttribute("data-state")], ["1.1.0", "active"]);
  // The natural request both skills shaped, under each of them.
  for (const skill of [packing, customs]) await skill.locator(`[data-testid="skill-run"][data-plan="${seededMemory.skilledPlan}"]`).waitFor();
  assert.match(
    await text(packing.locator(`[data-testid="skill-run"][data-plan="${seededMemory.skilledPlan}"]`)),
    /version 1\.0\.0 .*read references\/packing-checklist\.md/,
  );
  await shot("skills");

  await page.fill('[data-testid="skill-filter"]', "customs");
  await page.press('[data-testid="skill-filter"]', "Enter");
  await eventually(
    "only local-customs",
    async () => JSON.stringify(await attributes('[data-testid="registry-skill"]', "data-skill")) === '["travel-agent/local-customs"]',
  );
  await customs.locator(`[data-testid="skill-run"][data-plan="${seededMemory.skilledPlan}"] a`).click();
  const run = page.locator(`[data-testid="execution"][data-plan="${seededMemory.skilledPlan}"]`);
  await run.waitFor();
  assert.is(await page.locator('[data-testid="execution"]').count(), 1, "the Execution DAG shows that run");
  assert.equal(await run.locator('[data-testid="run-skills"] [data-skill]').evaluateAll((chips) => chips.map((c) => c.getAttribute("data-skill")).sort()), [
    "travel-agent/local-customs@1.1.0",
    "travel-agent/packing-advice@1.0.0",
  ]);
  assert.equal(await run.locator('[data-testid="dag-node"]').evaluateAll((nodes) => nodes.map((n) => n.getAttribute("data-step"))), ["where", "weather"]);
  await shot("skills-run");
  await page.click('[data-testid="all-runs"]');
  await eventually("every run again", async () => (await page.locator('[data-testid="execution"]').count()) > 1);

  await page.goto(`${network.dashboard}/#/skills?filter=catalog`);
  await page.waitForSelector('[data-testid="skills"][data-agent="travel-agent"]');
  assert.equal((await attributes('[data-testid="skill-component"]', "data-name")).sort(), [...TRAVEL].sort());
  const warm = page.locator('[data-testid="skill"][data-name="warm_cache"]');
  assert.is(await warm.getAttribute("data-internal"), "true");
  assert.match(await text(warm), /internal · hidden from the planner/);
  assert.match(await text(page.locator('[data-testid="skill"][data-name="convert_currency"]')), /amount: number, from: string, to: string/);
  await shot("skills-catalog");
});

test("Memory: the facts extraction kept about a user (the contradicted city replaced), the profile, their sessions; filtered by text", async () => {
  await page.goto(`${network.dashboard}/#/memory?user=${encodeURIComponent(USER)}`);
  await page.waitForSelector(`[data-testid="memory-user"][data-user="${USER}"]`);
  const facts = page.locator('[data-testid="fact"]');
  await eventually("two facts", async () => (await facts.count()) === 2);
  assert.equal(await attributes('[data-testid="fact"]', "data-key"), ["diet", "home_city"]);
  const city = page.locator('[data-testid="fact"][data-key="home_city"]');
  assert.equal([await text(city.locator('[data-testid="fact-value"]')), await text(city.locator('[data-testid="fact-previous"]'))], ["Lisbon", "Berlin"]);
  assert.match(await text(city), /session [0-9a-f-]{36} · message /, "the turn it was learnt from");
  assert.is(await text(page.locator('[data-testid="memory-summary"] .content')), PROFILE);
  assert.is(await page.locator('[data-testid="memory-summary"]').getAttribute("data-stale"), "false");
  await shot("memory");

  await page.fill('[data-testid="fact-filter"]', "vegetarian");
  await page.press('[data-testid="fact-filter"]', "Enter");
  await eventually("only the diet", async () => JSON.stringify(await attributes('[data-testid="fact"]', "data-key")) === '["diet"]');

  await page.click(`[data-testid="memory-session"][data-session="${seeded.sessionId}"]`);
  await eventually("the conversation's messages", async () => (await page.locator('[data-testid="message"]').count()) >= 3);
  const texts = await page.locator('[data-testid="message"] .content').allInnerTexts();
  assert.equal(texts.slice(0, 3), ["Where is Lisbon?", "Lisbon is on the Atlantic coast of Portugal.", "Convert 250 EUR to USD"]);
  await shot("memory-session");
});

test("Memory: the travel-agent domain's episodes newest first, its digest; filtered by entity", async () => {
  await page.goto(`${network.dashboard}/#/memory?filter=domains`);
  await page.waitForSelector('[data-testid="episodes"][data-domain="travel-agent"]');
  assert.match(await text(page.locator('[data-testid="domain-source"]')), /registered agents/);
  assert.equal(await attributes("#filters [data-domain]", "data-domain"), ["travel-agent"]);
  const episodes = page.locator('[data-testid="episode"]');
  await episodes.first().waitFor();
  const ids = await attributes('[data-testid="episode"]', "data-id");
  assert.equal(ids, [...ids].sort().reverse(), "newest first");
  const skilled = page.locator('[data-testid="episode"]', { hasText: seededMemory.skilledRequest });
  assert.is(await text(skilled.locator('[data-testid="episode-summary"]')), "Asked about Lisbon; looked up its weather.", "the run the skills shaped");
  assert.match(await text(skilled), new RegExp(`asked by ${USER}`));
  assert.is(await text(page.locator('[data-testid="digest-text"]')), DIGEST);
  await shot("memory-episodes");

  await page.locator('[data-testid="episode-entity"][data-entity="location:lisbon"]').first().click();
  await page.waitForSelector('[data-testid="domain-source"] strong');
  await eventually("only Lisbon's episodes", async () => {
    const entities = await page.$$eval('[data-testid="episode"]', (cards) =>
      cards.map((card) => [...card.querySelectorAll('[data-testid="episode-entity"]')].map((e) => e.getAttribute("data-entity"))),
    );
    return entities.length >= 2 && entities.every((list) => list.includes("location:lisbon"));
  });
  await shot("memory-episodes-lisbon");
});

test("markup in a fact, a profile, an episode and a skill's description is shown as text: no element, no load, no script", async () => {
  // Values a model or a caller chose, written through the real stores in the network's namespace.
  const HOSTILE = `<img src="/memory-probe.png" onerror="window.__memory = 'ran'"><script>window.__memory = 'script'</script>`;
  const mallory = "mallory@example.com";
  const store = createStore({ env: { REDIS_URL: network.redis.url } });
  const facts = createFactStore({ store });
  const skills = createSkillStore({ store });
  const episodes = createEpisodeStore({ store, domain: "travel-agent" });
  const probes: string[] = [];
  const onRequest = (request: { url(): string }) => void (request.url().includes("memory-probe") && probes.push(request.url()));
  page.on("request", onRequest);
  const noMarkup = async (where: string) => assert.is(await page.locator("#view img, #view script").count(), 0, `${where}: no element made from a value`);
  try {
    const at = new Date().toISOString();
    await facts.put(mallory, { key: "nickname", value: HOSTILE, source: { request_id: "req-markup" }, created_at: at, updated_at: at, previous: HOSTILE });
    await facts.setSummary(mallory, { text: HOSTILE, revision: await facts.revision(mallory), updated_at: at });
    await skills.publish({ namespace: "markup", name: "hostile-skill", version: "1.0.0", description: HOSTILE, instructions: "Say hello.", resources: [] });
    await episodes.append({
      id: `${String(Date.now()).padStart(13, "0")}-${randomBytes(8).toString("hex")}`,
      domain: "travel-agent",
      request_id: "req-markup",
      user: HOSTILE,
      status: "success",
      entities: [],
      events: [{ kind: "request", text: HOSTILE }],
      summary: HOSTILE,
      summary_outcome: "complete",
      created_at: at,
    });

    // Same page, so each view keeps the earlier tests' filters unless the link resets them.
    await page.goto(`${network.dashboard}/#/memory?filter=users&q=&user=${encodeURIComponent(mallory)}`);
    const fact = page.locator('[data-testid="fact"][data-key="nickname"]');
    await fact.waitFor();
    assert.equal([await text(fact.locator('[data-testid="fact-value"]')), await text(fact.locator('[data-testid="fact-previous"]'))], [HOSTILE, HOSTILE]);
    assert.is(await text(page.locator('[data-testid="memory-summary"] .content')), HOSTILE);
    await noMarkup("user memory");

    await page.goto(`${network.dashboard}/#/memory?filter=domains&entity=&offset=`);
    const episode = page.locator('[data-testid="episode"]', { hasText: "req-markup" });
    await episode.waitFor();
    assert.is(await text(episode.locator('[data-testid="episode-summary"]')), HOSTILE);
    assert.match(await text(episode), /asked by <img/);
    await noMarkup("agent memory");

    await page.goto(`${network.dashboard}/#/skills?filter=registry&q=hostile`);
    const skill = page.locator('[data-testid="registry-skill"][data-skill="markup/hostile-skill"]');
    await skill.waitFor();
    assert.match(await text(skill), /<img src="\/memory-probe\.png"/);
    await noMarkup("skills");
    assert.is(await page.evaluate(() => (globalThis as unknown as { __memory?: string }).__memory), undefined, "no handler or script ran");
    assert.equal(probes, [], "no request for the injected image");
  } finally {
    page.off("request", onRequest);
    await episodes.close();
    await skills.close();
    await facts.close();
    await store.close();
  }
});

test("the API browser shows every description as text: markup in a manifest creates no element, loads nothing, runs nothing (L5)", async () => {
  const HOSTILE = `Pays. <img src="/l5-probe.png" onerror="window.__l5 = 'ran'"> <a href="javascript:window.__l5='link'">more</a> **bold**`;
  const store = createStore({ env: { REDIS_URL: network.redis.url } });
  const registry = createRegistry({ store, cache: false });
  const spec = toolSpec(tool("hostile-service", { description: HOSTILE, capabilities: { pay: { description: HOSTILE, input: { amount: "number" } } } }));
  const hostile = await serveComponent(spec, {
    port: 0,
    handlers: { pay: () => ({}) },
    registry,
    enableOpenApi: true,
    handleSignals: false,
    log: () => undefined,
  });
  const probes: string[] = [];
  const onRequest = (request: { url(): string }) => void (request.url().includes("l5-probe") && probes.push(request.url()));
  page.on("request", onRequest);
  try {
    await eventually("the API browser lists hostile-service", async () => {
      await page.goto(`${network.dashboard}/api-browser?service=hostile-service`);
      await page.waitForSelector(".swagger-ui .info .title");
      return /hostile-service/.test(await text(page.locator(".swagger-ui .info .title")));
    });
    await page.locator(".swagger-ui .opblock-summary-path", { hasText: "/api/capabilities/pay" }).click();
    await page.locator(".swagger-ui .opblock-body").waitFor();
    // The component's description (the document's info, Markdown to Swagger UI) and the capability's (the operation's summary).
    const shown = await page.$$eval(".swagger-ui .info .description, .swagger-ui .opblock-summary-description", (elements) =>
      elements.map((e) => ({ text: e.textContent ?? "", markup: e.querySelectorAll("img, a, strong, script").length })),
    );
    const parts = shown.filter((part) => part.text.includes("Pays."));
    assert.is(parts.length, 2, JSON.stringify(shown));
    assert.is(await page.locator(".swagger-ui img, .swagger-ui a[href^='javascript']").count(), 0, "no image or script link anywhere in the page");
    for (const part of parts) {
      assert.ok(part.text.includes(HOSTILE), `shown literally: ${part.text}`);
      assert.is(part.markup, 0, "no element made from the description");
    }
    assert.is(await page.evaluate(() => (globalThis as unknown as { __l5?: string }).__l5), undefined, "no handler ran");
    await shot("api-browser-text");
    assert.equal(probes, [], "no request for the injected image");
  } finally {
    page.off("request", onRequest);
    await hostile.close();
    await registry.close();
    await store.close();
  }
});

test("a debug store switched off is said so, with the variable to set", async () => {
  const off = await serveDashboard({ port: 0, handleSignals: false, log: () => undefined, env: { REDIS_URL: network.redis.url } });
  try {
    await page.goto(`${off.url}/#/llm`);
    await page.waitForSelector('#view[data-loaded="llm:all"]');
    assert.is(
      await text(page.locator('[data-testid="notice"]')),
      "LLM debug capture is off: set MANIFOLD_LLM_DEBUG_ENABLED=true (on the agents and on the dashboard)",
    );
    await shot("llm-debug-off");
    await page.goto(`${off.url}/#/executions`);
    await page.waitForSelector('#view[data-loaded="executions:all"]');
    assert.match(await text(page.locator('[data-testid="notice"]')), /MANIFOLD_EXECUTION_DEBUG_STORE_ENABLED=true/);
  } finally {
    await off.close();
  }
  assert.equal(problems, [], "no script error or blocked resource in any page");
});

test.run();
