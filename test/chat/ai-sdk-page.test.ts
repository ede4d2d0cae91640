/**
 * The example chat page (manifests/travel/chat-page, served by serve-chat-page.ts) in headless
 * Chromium against a real agent with a scripted model: one turn whose plan adds, then pays with a
 * sensitive step. The page shows the add step as a tool part with its input and output and the pay
 * step awaiting approval; Approve goes to /hitl/command, the resumed run's answer appears, and the
 * tool ran once, after the approval. The agent answers the page's origin only because its CORS list
 * names it. Screenshot: test-output/chat/ai-sdk-page.png.
 */
import { mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { chromium, type Browser } from "playwright-core";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { serveChatPage, type ChatPage } from "../../manifests/travel/serve-chat-page.js";
import { planStep, planText } from "../orchestration/support.js";
import { startChatAgent, type ChatAgent } from "./ai-sdk-support.js";

for (const name of ["REDIS_URL", "OPENAI_API_KEY", "MANIFOLD_LLM_API_KEY", "MANIFOLD_LLM_BASE_URL", "MANIFOLD_CORS_ORIGINS"]) delete process.env[name];

const SHOTS = fileURLToPath(new URL("../../test-output/chat/", import.meta.url));
const WAIT_MS = 15_000;
let agent: ChatAgent | undefined;
let page: ChatPage;
let browser: Browser;

test.before(async () => {
  mkdirSync(SHOTS, { recursive: true });
  // The page first: the agent's CORS list needs its origin.
  page = await serveChatPage({ agentUrl: () => agent?.running.url });
  agent = await startChatAgent({ corsOrigins: [page.url] });
  browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
  });
});

test.after(async () => {
  await browser?.close();
  await agent?.close();
  await page?.close();
});

test("one chat turn with a HITL approval: tool parts, Approve through /hitl/command, the resumed answer", async () => {
  const tab = await browser.newPage();
  tab.setDefaultTimeout(WAIT_MS);
  const problems: string[] = [];
  tab.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  tab.on("console", (message) => {
    if (message.type() === "error") problems.push(`console: ${message.text()}`);
  });
  agent!.llm.reply({
    text: planText([planStep("sum", "worker", "add", { a: 40, b: 2 }), planStep("pay", "worker", "echo", { amount: "{{sum.response.data.sum}}" }, ["sum"])]),
  });
  await tab.goto(`${page.url}/`);
  await tab.waitForSelector('body[data-state="idle"]');
  await tab.fill("#prompt", "add 40 and 2, then pay it");
  await tab.click("#send");

  const pay = tab.locator('.tool[data-tool="worker.echo"][data-state="approval-requested"]');
  await pay.waitFor();
  const add = tab.locator('.tool[data-tool="worker.add"][data-state="output-available"]');
  assert.match((await add.locator(".input").textContent()) ?? "", /"a": 40/);
  assert.match((await add.locator(".output").textContent()) ?? "", /"sum": 42/);
  assert.match((await pay.locator(".input").textContent()) ?? "", /"amount": 42/);
  await tab.waitForSelector('body[data-state="awaiting-approval"]');
  assert.equal(
    agent!.tools.calls.map((c) => c.capability),
    ["add"],
    "the sensitive step waits for the human",
  );

  agent!.llm.reply({ text: "Added 40 and 2, then paid 42." });
  await pay.locator('button[data-action="approve"]').click();
  await tab.locator(".message.assistant .text", { hasText: "Added 40 and 2, then paid 42." }).waitFor();
  await tab.waitForSelector('.tool[data-tool="worker.echo"][data-state="approval-responded"]');
  await tab.waitForSelector('body[data-state="idle"]');
  assert.equal(
    agent!.tools.calls.map((c) => [c.capability, c.input]),
    [
      ["add", { a: 40, b: 2 }],
      ["echo", { amount: 42 }],
    ],
  );
  await tab.screenshot({ path: `${SHOTS}ai-sdk-page.png`, fullPage: true });
  assert.equal(problems, []);
});

test.run();
