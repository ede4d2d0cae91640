/**
 * The example network as its generated Dockerfiles build and start it, without Docker: the image
 * filesystem is built by carrying out the Dockerfile (npm ci, the project's build, the production
 * prune; see support/dockerfile-build.ts), then each component's CMD runs from the image's WORKDIR
 * with the image's ENV plus what its Kubernetes manifests set (PORT from the ConfigMap, REDIS_URL with
 * a password from the Secret, the advertised pod address). Each answers /health and its HEALTHCHECK,
 * the agent answers a call that crosses the network through discovery, a worker-mode pod serves only
 * /health, and SIGTERM ends each process cleanly well inside its emitted grace period.
 */
import { spawnSync } from "node:child_process";
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { parse as parseYaml } from "yaml";
import { PRE_STOP_SECONDS } from "../../generator/emit/deploy/model.js";
import { buildDockerfile, hostPath, type BuiltImage } from "../support/dockerfile-build.js";
import { startProcess, stopAll, type Exit, type Started } from "../support/processes.js";
import { startRedisServer, type RedisServer } from "../support/redis.js";

const root = new URL("../..", import.meta.url).pathname;
const COMPONENTS = ["geocoding-service", "weather-service", "currency-service", "country-info-service", "travel-agent", "scheduler"];

let image: BuiltImage;
let redis: RedisServer;

/** The final stage's CMD of a component's Dockerfile (its build stage is checked to be the shared one). */
async function dockerfile(name: string): Promise<string> {
  return readFile(join(root, "generated", name, "deploy", "Dockerfile"), "utf8");
}

function cmdOf(text: string): string[] {
  return JSON.parse(/^CMD (.*)$/m.exec(text)![1]!) as string[];
}

/** Everything before the runtime stage, without the comment naming the image. */
function buildStage(text: string): string {
  return text
    .slice(0, text.lastIndexOf("\nFROM "))
    .split("\n")
    .filter((l) => !l.startsWith("#"))
    .join("\n");
}

async function graceSeconds(name: string): Promise<number> {
  const deployment = parseYaml(await readFile(join(root, "generated", name, "deploy", "deployment.yaml"), "utf8")) as any;
  return deployment.spec.template.spec.terminationGracePeriodSeconds;
}

/** A component's CMD from the image's WORKDIR, with the image's ENV and what its manifests set; ready once /health answers. */
async function start(name: string, extra: Record<string, string> = {}): Promise<Started & { readonly url: string }> {
  const cmd = cmdOf(await dockerfile(name));
  assert.is(cmd[0], "node");
  const started = await startProcess({
    name,
    command: [process.execPath, ...cmd.slice(1)],
    cwd: hostPath(image, image.workdir),
    cleanEnv: true,
    env: {
      PATH: process.env["PATH"] ?? "",
      ...image.env,
      REDIS_URL: redis.url,
      MANIFOLD_REDIS_NAMESPACE: "deploy-image",
      MANIFOLD_ADVERTISE_ADDRESS: "127.0.0.1",
      MANIFOLD_TELEMETRY_SERVICE_INSTANCE_ID: `${name}-pod`,
      ...extra,
    },
    // PORT, as the ConfigMap sets it.
    port: "free",
    ready: { health: "/health" },
  });
  return { ...started, url: started.url! };
}

/**
 * As the kubelet stops a pod: SIGTERM (after preStop), then SIGKILL once the rest of the grace period
 * has passed. The pod stopped inside its grace period when it exited 0 by itself, not killed.
 */
function terminate(running: Started, graceSeconds: number): Promise<Exit> {
  return running.stop({ signal: "SIGTERM", limitMs: (graceSeconds - PRE_STOP_SECONDS) * 1000 });
}

test.before(async () => {
  redis = await startRedisServer({ password: "s3cret-from-the-Secret" });
  // npm's cache stands in for Docker's layer cache; nothing else is changed.
  image = await buildDockerfile({
    context: root,
    dockerfile: join(root, "generated/travel-agent/deploy/Dockerfile"),
    runEnv: { npm_config_prefer_offline: "true", npm_config_update_notifier: "false", npm_config_loglevel: "error" },
  });
});

test.after(async () => {
  await stopAll({ signal: "SIGKILL" });
  await redis?.close();
  if (image !== undefined) await rm(join(image.root, ".."), { recursive: true, force: true });
});

test("the image is the Dockerfile's: node 20 base, production dependencies only, nothing ignored copied in", async () => {
  assert.equal(image.bases, ["node:20-slim", "node:20-slim"]);
  // The emulator's base image is this machine: it must be the node the Dockerfile asks for.
  assert.is(process.versions.node.split(".")[0], "20");
  assert.is(image.workdir, "/app");
  assert.is(image.user, "1000:1000");
  const has = (path: string) => spawnSync("test", ["-e", hostPath(image, path)]).status === 0;
  for (const present of ["node_modules/koa", "node_modules/ioredis", "dist/runtime/index.js", "dist-example/manifests/travel/serve.js"])
    assert.ok(has(present), present);
  for (const absent of ["node_modules/typescript", "node_modules/@biomejs/biome", "node_modules/tsx", ".git"]) assert.not.ok(has(absent), absent);
  // Every component's image is built by the same steps, so this filesystem is each one's.
  const shared = buildStage(await dockerfile("travel-agent"));
  for (const name of COMPONENTS) assert.fixture(buildStage(await dockerfile(name)), shared, name);
});

test("every component starts from its CMD, answers /health and passes its HEALTHCHECK; the agent's call crosses the network", async () => {
  const started = new Map<string, Started & { readonly url: string }>();
  for (const name of COMPONENTS) started.set(name, await start(name));
  for (const [name, running] of started) {
    const body = (await (await fetch(`${running.url}/health`)).json()) as { name: string; status: string };
    assert.equal([body.name, body.status], [name, "healthy"]);
    const check = spawnSync(process.execPath, image.healthcheck!.slice(1), { env: { PORT: new URL(running.url).port }, timeout: 10_000 });
    assert.is(check.status, 0, `${name} HEALTHCHECK`);
  }
  // trip_brief calls four tools, each found in the shared registry by name, at the advertised address.
  const agent = started.get("travel-agent")!;
  const response = await fetch(`${agent.url}/api/capabilities/trip_brief`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ destination: "Kyoto", home_currency: "EUR", budget: 1000 }),
  });
  const text = await response.text();
  assert.is(response.status, 200, text);
  assert.match(text, /Kyoto/);

  for (const [name, running] of started) {
    const grace = await graceSeconds(name);
    const exit = await terminate(running, grace);
    assert.equal(exit, { code: 0, signal: null }, `${name} exits 0 on SIGTERM before the kubelet's SIGKILL (grace ${grace} s)\n${running.tail()}`);
  }
});

test("the worker Deployment's pod (MANIFOLD_MODE=worker) answers /health only and stops inside its grace period", async () => {
  const worker = await start("travel-agent", { MANIFOLD_MODE: "worker" });
  assert.is((await fetch(`${worker.url}/api/capabilities`)).status, 404);
  const workerYaml = parseYaml(await readFile(join(root, "generated/travel-agent/deploy/worker.yaml"), "utf8")) as any;
  const exit = await terminate(worker, workerYaml.spec.template.spec.terminationGracePeriodSeconds);
  assert.equal(exit, { code: 0, signal: null }, `the worker exits 0 on SIGTERM before the kubelet's SIGKILL\n${worker.tail()}`);
});

test.run();
