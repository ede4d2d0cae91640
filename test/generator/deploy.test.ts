/**
 * `kind: deployment` → deploy/: every emitted Kubernetes object passes the published API schemas with
 * no key they do not know, every Dockerfile parses and lints clean, the timings agree with the
 * runtime's shutdown and registry constants, manifest text cannot escape its value, and a deployment
 * that does not fit the network is a positioned diagnostic.
 */
import { readFile, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { DockerfileParser } from "dockerfile-ast";
import { validate as lintDockerfile } from "dockerfile-utils";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { parseAllDocuments, parse as parseYaml } from "yaml";
import { emitProject } from "../../generator/emit/index.js";
import { loadSources } from "../support/manifests.js";
import { DEFAULT_DRAIN_TIMEOUT_MS, DEFAULT_REGISTRATION_TTL_MS, DEFAULT_TASK_SHUTDOWN_TIMEOUT_MS } from "../../runtime/spec/index.js";
import { PRE_STOP_SECONDS } from "../../generator/emit/deploy/model.js";
import { kubernetesProblems } from "../support/kubernetes.js";
import { main } from "../../generator/cli.js";
import { GEOCODING_TOOL, TRAVEL_AGENT, TRAVEL_WORKFLOW, WEATHER_TOOL, tempProject, where } from "./load-helpers.js";

const root = new URL("../..", import.meta.url).pathname;

/** The example network, the fixtures, and one in memory with an embedded agent and tricky values. */
async function committed(dir: string): Promise<Map<string, string>> {
  const entries = await readdir(join(root, dir), { recursive: true, withFileTypes: true });
  const files = new Map<string, string>();
  for (const e of entries) {
    if (!e.isFile()) continue;
    const path = join(e.parentPath, e.name).slice(join(root, dir).length + 1);
    if (path === "kustomization.yaml" || path === "redis.yaml" || path.includes("/deploy/"))
      files.set(path, await readFile(join(e.parentPath, e.name), "utf8"));
  }
  return files;
}

const EDGE_DEPLOYMENT = `kind: deployment
name: edge
build: "echo \\"built\\" && npm run build"
components:
  geocoding-service: { entry: dist/serve.js, args: [geocoding-service, "--flag=a b"] }
  weather-service: { entry: dist/serve.js, args: [weather-service], replicas: 0 }
  travel-agent:
    entry: dist/serve.js
    workers: 0
    env: { NOTE: "a: b\\nkind: Secret\\n# c" }
`;

function emitted(sources: Record<string, string>): Map<string, string> {
  const project = loadSources(Object.entries(sources).map(([file, text]) => ({ file, text })));
  assert.equal(project.diagnostics, [], JSON.stringify(project.diagnostics));
  return emitProject(project, { manifestsDir: "m" });
}

const edge = () =>
  emitted({
    "m/geo.yaml": GEOCODING_TOOL,
    "m/weather.yaml": WEATHER_TOOL,
    "m/agent.yaml": TRAVEL_AGENT,
    "m/flow.yaml": TRAVEL_WORKFLOW,
    "m/deploy.yaml": EDGE_DEPLOYMENT,
  });

async function networks(): Promise<[string, Map<string, string>][]> {
  return [
    ["generated", await committed("generated")],
    ["test/fixtures/generated", await committed("test/fixtures/generated")],
    ["edge", new Map([...edge()].filter(([p]) => p === "kustomization.yaml" || p === "redis.yaml" || p.includes("/deploy/")))],
  ];
}

function objects(text: string): Record<string, unknown>[] {
  return parseAllDocuments(text).map((d) => {
    assert.equal(d.errors, []);
    return d.toJS() as Record<string, unknown>;
  });
}

test("every emitted Kubernetes object passes the API schemas and uses no key they do not know", async () => {
  let count = 0;
  for (const [name, files] of await networks()) {
    for (const [path, text] of files) {
      if (!path.endsWith(".yaml") || path === "kustomization.yaml") continue;
      for (const object of objects(text)) {
        assert.equal(kubernetesProblems(object), [], `${name}/${path}`);
        count++;
      }
    }
  }
  assert.ok(count >= 30, `${count} objects`);
});

test("each kustomization lists exactly the network's Kubernetes files, and those exist", async () => {
  for (const [name, files] of await networks()) {
    const kustomization = parseYaml(files.get("kustomization.yaml")!) as { kind: string; resources: string[] };
    assert.is(kustomization.kind, "Kustomization");
    const yaml = [...files.keys()].filter((p) => p.endsWith(".yaml") && p !== "kustomization.yaml").sort();
    assert.equal(kustomization.resources, yaml, name);
  }
});

test("every Dockerfile lints clean and runs node on the deployment's entry as a numeric non-root user, with a /health check", async () => {
  const expected: Record<string, string[]> = {
    "generated/geocoding-service": ["node", "dist-example/manifests/travel/serve.js", "geocoding-service"],
    "generated/scheduler": ["node", "dist/generator/bin.js", "scheduler"],
    "test/fixtures/generated/trip-tool": ["node", "dist/test/e2e/fixtures/trip-tool.js"],
    "edge/geocoding-service": ["node", "dist/serve.js", "geocoding-service", "--flag=a b"],
  };
  let count = 0;
  for (const [name, files] of await networks()) {
    for (const [path, text] of files) {
      if (!path.endsWith("/Dockerfile")) continue;
      count++;
      assert.equal(lintDockerfile(text), [], `${name}/${path}`);
      const parsed = DockerfileParser.parse(text);
      const froms = parsed.getFROMs();
      assert.is(froms.length, 2, "a build stage and a runtime stage");
      const final = parsed.getInstructions().filter((i) => i.getRange().start.line > froms[1]!.getRange().start.line);
      const user = final
        .find((i) => i.getKeyword() === "USER")!
        .getArguments()[0]!
        .getValue();
      assert.match(user, /^[1-9]\d*:[1-9]\d*$/);
      assert.ok(final.some((i) => i.getKeyword() === "HEALTHCHECK" && i.getArgumentsContent()!.includes("/health")));
      const cmd = JSON.parse(final.find((i) => i.getKeyword() === "CMD")!.getArgumentsContent()!) as string[];
      const key = `${name}/${path.split("/")[0]}`;
      if (expected[key] !== undefined) assert.equal(cmd, expected[key], key);
      else assert.is(cmd[0], "node");
    }
  }
  assert.ok(count >= 8);
});

test("grace periods cover preStop, the drain and the stop of what the pod runs; liveness gives up after exactly the registry TTL", async () => {
  const files = await committed("generated");
  const grace = (path: string) => {
    const [deployment] = objects(files.get(path)!) as any[];
    const pod = deployment.spec.template.spec;
    const container = pod.containers[0];
    assert.equal(container.lifecycle.preStop.exec.command, ["sleep", String(PRE_STOP_SECONDS)]);
    assert.is(container.livenessProbe.periodSeconds * container.livenessProbe.failureThreshold, DEFAULT_REGISTRATION_TTL_MS / 1000);
    // Readiness notices a draining pod (it answers 503) well before the drain ends.
    assert.ok(container.readinessProbe.periodSeconds * container.readinessProbe.failureThreshold <= DEFAULT_DRAIN_TIMEOUT_MS / 1000);
    return pod.terminationGracePeriodSeconds as number;
  };
  const drain = DEFAULT_DRAIN_TIMEOUT_MS / 1000;
  assert.ok(grace("weather-service/deploy/deployment.yaml") > PRE_STOP_SECONDS + drain + drain);
  assert.ok(grace("scheduler/deploy/deployment.yaml") > PRE_STOP_SECONDS + drain + drain);
  assert.ok(grace("travel-agent/deploy/worker.yaml") > PRE_STOP_SECONDS + drain + DEFAULT_TASK_SHUTDOWN_TIMEOUT_MS / 1000);
});

test("an agent with tasks is split: api pods behind the Service, worker pods without it, one ConfigMap; workers: 0 keeps one embedded Deployment", async () => {
  const files = await committed("generated");
  const [api] = objects(files.get("travel-agent/deploy/deployment.yaml")!) as any[];
  const [worker] = objects(files.get("travel-agent/deploy/worker.yaml")!) as any[];
  const [service] = objects(files.get("travel-agent/deploy/service.yaml")!) as any[];
  const env = (d: any) => Object.fromEntries(d.spec.template.spec.containers[0].env.map((e: any) => [e.name, e.value ?? e.valueFrom]));
  assert.is(env(api)["MANIFOLD_MODE"], "api");
  assert.is(env(worker)["MANIFOLD_MODE"], "worker");
  assert.is(worker.metadata.name, "travel-agent-worker");
  assert.is(worker.spec.replicas, 2);
  assert.equal(env(api)["REDIS_URL"], { secretKeyRef: { name: "travel-secrets", key: "REDIS_URL" } });
  assert.equal(env(api)["MANIFOLD_TELEMETRY_SERVICE_INSTANCE_ID"], { fieldRef: { fieldPath: "metadata.name" } });
  for (const d of [api, worker]) assert.equal(d.spec.template.spec.containers[0].envFrom, [{ configMapRef: { name: "travel-agent-config" } }]);
  // The Service selects the api pods only, through labels their template carries and the worker's does not.
  const matches = (d: any) => Object.entries(service.spec.selector).every(([k, v]) => d.spec.template.metadata.labels[k] === v);
  assert.ok(matches(api));
  assert.not.ok(matches(worker));

  const embedded = edge();
  assert.not.ok(embedded.has("travel-agent/deploy/worker.yaml"));
  const [one] = objects(embedded.get("travel-agent/deploy/deployment.yaml")!) as any[];
  assert.is(env(one)["MANIFOLD_MODE"], undefined);
  assert.is(one.metadata.labels["app.kubernetes.io/component"], "embedded");
});

test("no credential reaches a ConfigMap, and manifest text stays inside its value", () => {
  const files = edge();
  const [config] = objects(files.get("travel-agent/deploy/configmap.yaml")!) as any[];
  assert.is(config.data.NOTE, "a: b\nkind: Secret\n# c");
  assert.equal(Object.keys(config.data).sort(), ["NODE_ENV", "NOTE", "OTEL_SERVICE_NAME", "PORT"]);
  const dockerfile = files.get("geocoding-service/deploy/Dockerfile")!;
  assert.equal(lintDockerfile(dockerfile), []);
  const run = DockerfileParser.parse(dockerfile)
    .getInstructions()
    .filter((i) => i.getKeyword() === "RUN")
    .at(-1)!;
  assert.equal(JSON.parse(run.getArgumentsContent()!), ["/bin/sh", "-c", 'npm rebuild && echo "built" && npm run build && npm prune --omit=dev']);
  for (const [path, text] of files) if (path.includes("/deploy/")) assert.not.match(text, /REDIS_PASSWORD=|password:/i, path);
});

const DEPLOY = "m/deploy.yaml";
const check = (deployment: string, extra: Record<string, string> = {}) =>
  loadSources(Object.entries({ "m/geo.yaml": GEOCODING_TOOL, [DEPLOY]: deployment, ...extra }).map(([file, text]) => ({ file, text })));

test("a deployment that does not fit the network is a positioned diagnostic", () => {
  const head = "kind: deployment\nname: net\ncomponents:\n";
  const typo = check(`${head}  geocoding-servce: { entry: dist/geo.js }\n`);
  assert.equal(where(typo), [
    ["MF1317", 3, 1],
    ["MF1317", 4, 3],
  ]);
  assert.match(typo.diagnostics[1]!.message, /did you mean `geocoding-service`/);
  assert.match(typo.diagnostics[0]!.message, /add `geocoding-service` under `components`/);

  const problems = check(`${head}  geocoding-service:\n    workers: 2\n    env: { PORT: "1", OPENAI_API_KEY: x }\n    secrets: [REDIS_URL]\n`);
  assert.equal(
    problems.diagnostics.map((d) => [d.code, d.line]),
    [
      ["MF1318", 4],
      ["MF1318", 5],
      ["MF1318", 6],
      ["MF1318", 6],
      ["MF1318", 7],
    ],
  );
  const messages = [
    /`geocoding-service` needs an `entry`/,
    /`workers` splits an agent with tasks/,
    /`PORT` is set by the emitted Deployment/,
    /`OPENAI_API_KEY` looks like a credential: list it under `secrets`/,
    /`REDIS_URL` is set by the emitted Deployment/,
  ];
  messages.forEach((pattern, i) => assert.match(problems.diagnostics[i]!.message, pattern));
  const twice = check(`${head}  geocoding-service: { entry: a.js }\n`, { "m/second.yaml": `${head}  geocoding-service: { entry: a.js }\n` });
  assert.equal(where(twice), [["MF1319", 1, 7]]);
  // The schema keeps shell and YAML out of the values that reach a Dockerfile or a path.
  const schema = check(`${head}  geocoding-service: { entry: ../outside.js }\nbuild: "a\\nRUN rm -rf /"\n`);
  assert.equal(
    schema.diagnostics.map((d) => [d.code, d.line]),
    [
      ["MF1205", 4],
      ["MF1205", 5],
    ],
  );
  assert.match(schema.diagnostics[0]!.message, /no '\.\.'/);
  assert.match(schema.diagnostics[1]!.message, /one line without control characters/);
});

test("gen --deploy without a deployment manifest is a usage error that writes nothing; with one it writes deploy/", async () => {
  const { root: dir, cleanup } = await tempProject({ "m/geo.yaml": GEOCODING_TOOL });
  try {
    const err: string[] = [];
    const io = { out: () => {}, err: (t: string) => err.push(t), color: false };
    const args = ["gen", "--deploy", "--manifests", join(dir, "m"), "--out", join(dir, "out")];
    assert.is(await main(args, io), 2);
    assert.match(err.join(""), /--deploy needs a `kind: deployment` manifest/);
    assert.is(await readdir(join(dir, "out")).catch(() => "absent"), "absent");
    await writeFile(join(dir, "m/deploy.yaml"), "kind: deployment\nname: net\ncomponents:\n  geocoding-service: { entry: dist/geo.js }\n");
    assert.is(await main(args, io), 0);
    assert.ok((await readdir(join(dir, "out/geocoding-service/deploy"))).includes("Dockerfile"));
  } finally {
    await cleanup();
  }
});

test.run();
