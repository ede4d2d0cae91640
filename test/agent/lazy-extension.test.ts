/**
 * A feature part behind a lazy shell (runtime/feature/lazy-extension.ts), on a real component: its routes
 * answer from start (405 with Allow for a wrong method, before any load), the part loads on the first
 * request and requests arriving meanwhile wait for it and are answered by it; it is started with what the
 * component's start gave, a failed load answers that request and the next one loads again, a part adding
 * other routes than its shell's says so, and a loaded part is stopped with the component.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { serveComponent, sendJson, type ComponentExtension, type ExtensionStart, type RunningComponent } from "../../runtime/component/index.js";
import { createLazyExtension, type LazyRoute } from "../../runtime/feature/index.js";
import { tool, toolSpec } from "../support/specs.js";

const SPEC = toolSpec(tool("lazy-host", { description: "hosts a lazy part", capabilities: { ping: { description: "answers" } } }));
const ROUTES: readonly LazyRoute[] = [
  ["GET", "/part/:id"],
  ["POST", "/part"],
];

/** A real part whose load waits for `release`, counting its loads and recording its start and stop. */
function gatedPart(routes: readonly LazyRoute[] = ROUTES) {
  const seen = { loads: 0, started: [] as string[], stopped: 0, failNext: false };
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const load = async (): Promise<ComponentExtension> => {
    seen.loads += 1;
    await released;
    if (seen.failNext) {
      seen.failNext = false;
      throw new Error("the part's module failed to load");
    }
    return {
      name: "part",
      routes(add) {
        for (const [method, path] of routes) add(method, path, (ctx) => sendJson(ctx, 200, JSON.stringify({ method, id: ctx.params["id"] ?? null })));
      },
      start: ({ url }: ExtensionStart) => void seen.started.push(url),
      stop: async () => void (seen.stopped += 1),
    };
  };
  return { seen, release, lazy: createLazyExtension({ name: "part", routes: ROUTES, load }) };
}

const serve = (extension: ComponentExtension): Promise<RunningComponent> =>
  serveComponent(SPEC, { port: 0, registry: false, handleSignals: false, log: () => undefined, handlers: { ping: () => ({}) }, extensions: [extension] });

test("requests sent while the part loads wait for it and are answered by it; it starts once, with the component's URL, and stops with it", async () => {
  const { seen, release, lazy } = gatedPart();
  const running = await serve(lazy.extension);
  try {
    // The shell's routes are in the table before any load: a wrong method is 405 with Allow, and loads nothing.
    const wrong = await fetch(`${running.url}/part`, { method: "DELETE" });
    assert.equal([wrong.status, wrong.headers.get("allow")], [405, "POST, OPTIONS"]);
    assert.is(seen.loads, 0);
    const answers = Promise.all(
      ["/part/a", "/part/b"].map(async (path) => {
        const response = await fetch(`${running.url}${path}`);
        return [response.status, await response.json()];
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    release();
    assert.equal(await answers, [
      [200, { method: "GET", id: "a" }],
      [200, { method: "GET", id: "b" }],
    ]);
    const posted = await fetch(`${running.url}/part`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    assert.equal([posted.status, await posted.json()], [200, { method: "POST", id: null }]);
    assert.equal([seen.loads, seen.started], [1, [running.url]]);
  } finally {
    await running.close();
  }
  assert.is(seen.stopped, 1);
});

test("a failed load answers its request with the error envelope; the next request loads again", async () => {
  const { seen, release, lazy } = gatedPart();
  seen.failNext = true;
  release();
  const running = await serve(lazy.extension);
  try {
    const failed = await fetch(`${running.url}/part/x`);
    assert.equal([failed.status, ((await failed.json()) as { error: { code: string } }).error.code], [500, "INTERNAL"]);
    const next = await fetch(`${running.url}/part/x`);
    assert.equal([next.status, await next.json()], [200, { method: "GET", id: "x" }]);
    assert.is(seen.loads, 2);
  } finally {
    await running.close();
  }
});

test("a part that adds other routes than its shell declared fails its request, naming both lists", async () => {
  const { release, lazy } = gatedPart([["GET", "/part/:id"]]);
  release();
  const errors: string[] = [];
  const running = await serveComponent(SPEC, {
    port: 0,
    registry: false,
    handleSignals: false,
    log: (line) => void errors.push(String(line)),
    handlers: { ping: () => ({}) },
    extensions: [lazy.extension],
  });
  try {
    assert.is((await fetch(`${running.url}/part/x`)).status, 500);
    assert.ok(
      errors.some((line) => line.includes("the loaded part adds GET /part/:id, its shell declared GET /part/:id, POST /part")),
      errors.join("\n"),
    );
  } finally {
    await running.close();
  }
});

test("a part never requested is never loaded, started or stopped", async () => {
  const { seen, lazy } = gatedPart();
  const running = await serve(lazy.extension);
  await running.close();
  assert.equal([seen.loads, seen.started, seen.stopped], [0, [], 0]);
});

test.run();
