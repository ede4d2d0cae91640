/**
 * The web app's files (runtime/dashboard/web: plain HTML, ES modules and CSS, no build step) and
 * Swagger UI's from the `swagger-ui-dist` package, served from the dashboard itself: no CDN, so the
 * dashboard works offline and loads no third-party script.
 */
import { readdirSync, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, extname, join } from "node:path";
import { ManifoldError } from "../errors/index.js";
import { packageRoot } from "../package-root.js";
import type { AddRoute, RouteContext } from "../component/index.js";

const TYPES: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".png": "image/png",
  ".svg": "image/svg+xml",
};

/** The Swagger UI files the API browser page loads; nothing else of the package is reachable. */
const SWAGGER_FILES = ["swagger-ui.css", "swagger-ui-bundle.js", "swagger-ui-standalone-preset.js", "favicon-32x32.png", "favicon-16x16.png"];

/**
 * The dashboard's own pages load only its own scripts and styles. Framing is refused everywhere:
 * a framed Approve button could be clicked for someone (clickjacking).
 */
const APP_POLICY = "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";
/** Swagger UI sets inline styles, and "Try it out" calls the components themselves. */
const BROWSER_POLICY = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; connect-src *; frame-ancestors 'none'; base-uri 'none'";

interface StaticFile {
  readonly type: string;
  readonly body: Buffer;
}

export function webFolder(): string {
  return join(packageRoot(), "runtime", "dashboard", "web");
}

function swaggerFolder(): string {
  // swagger-ui-dist declares no `exports`, so its package.json resolves from wherever this package is installed.
  return dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));
}

/** The web folder read once: a handful of small files, so every request is a map lookup. */
function loadWeb(folder: string): Map<string, StaticFile> {
  const files = new Map<string, StaticFile>();
  for (const name of readdirSync(folder)) {
    const type = TYPES[extname(name)];
    if (type !== undefined) files.set(name, { type, body: readFileSync(join(folder, name)) });
  }
  return files;
}

function send(ctx: RouteContext, file: StaticFile, { policy, cache }: { policy?: string; cache: string }): void {
  ctx.status = 200;
  ctx.set("Content-Type", file.type);
  ctx.set("Cache-Control", cache);
  ctx.set("X-Content-Type-Options", "nosniff");
  ctx.set("X-Frame-Options", "DENY");
  ctx.set("Referrer-Policy", "no-referrer");
  if (policy !== undefined) ctx.set("Content-Security-Policy", policy);
  ctx.body = file.body;
}

export interface StaticOptions {
  /** @defaultValue the package's runtime/dashboard/web */
  readonly folder?: string;
}

export function addStaticRoutes(add: AddRoute, { folder = webFolder() }: StaticOptions = {}): void {
  const web = loadWeb(folder);
  const page = (name: string, policy: string) => {
    const file = web.get(name);
    if (file === undefined) throw new Error(`internal: the dashboard's ${name} is missing from ${folder}`);
    return (ctx: RouteContext) => send(ctx, file, { policy, cache: "no-cache" });
  };
  add("GET", "/", page("index.html", APP_POLICY));
  add("GET", "/api-browser", page("api-browser.html", BROWSER_POLICY));
  add("GET", "/app/:file", (ctx) => {
    const file = web.get(ctx.params["file"] ?? "");
    if (file === undefined || file.type.startsWith("text/html")) throw new ManifoldError("NOT_FOUND", `no file ${ctx.path}`);
    // no-cache, not no-store: the browser revalidates, so an upgraded dashboard is never served stale code.
    send(ctx, file, { cache: "no-cache" });
  });

  const swagger = new Map<string, Promise<StaticFile>>();
  add("GET", "/swagger-ui/:file", async (ctx) => {
    const name = ctx.params["file"] ?? "";
    if (!SWAGGER_FILES.includes(name)) throw new ManifoldError("NOT_FOUND", `no file ${ctx.path}`);
    let file = swagger.get(name);
    if (file === undefined) {
      // Read on first use: the bundle is over a megabyte and most dashboard sessions never open the API browser.
      file = readFile(join(swaggerFolder(), name)).then((body) => ({ type: TYPES[extname(name)]!, body }));
      swagger.set(name, file);
      file.catch(() => swagger.delete(name));
    }
    send(ctx, await file, { cache: "public, max-age=3600" });
  });
}
