/**
 * The skill registry's admin API, on every agent with skills:
 *
 * - `GET /skills` (`?namespace=`): every skill's summary (versions, pin, active version), no bodies;
 * - `GET /skills/<namespace>/<name>` (`?version=`, else the active one): the version with its
 *   instructions and resource listing (paths and bytes);
 * - `GET /skills/<namespace>/<name>/resources/<path…>` (`?version=`, else the active one): one resource;
 * - `POST /skills/<namespace>/<name>/versions`: publish (201; 200 when the same content was there);
 * - `PUT /skills/<namespace>/<name>/pin` `{version}` or `{version: null}`: pin or unpin;
 * - `POST /skills/<namespace>/<name>/versions/<version>/retire`: retire (idempotent).
 *
 * Writes need an admin (admin.ts). Each call is a `skills.admin.<op>` span with the skill's
 * namespace, name and version: never its description, instructions or resource texts.
 */
import { jsonReply, jsonRoute, type AddRoute, type RouteContext } from "../component/index.js";
import { isManifoldError, ManifoldError } from "../errors/index.js";
import type { SpanTrace } from "../telemetry/index.js";
import { pinOf, publishOf, requireSkillAdmin, skillOfPath, versionOfQuery } from "./admin.js";
import { inSpan } from "./context-telemetry.js";
import { checkNamespace, checkVersion, isResourcePath, SKILL_VERSION, type SkillStore } from "./store/index.js";
import { skillSpanAttributes } from "./store/telemetry.js";

export const SKILLS_PATH = "/skills";

/** `skills.admin.<op>`: the span of one admin call. */
export const adminSpanName = (op: string): string => `skills.admin.${op}`;

export interface SkillsRouteOptions {
  readonly store: SkillStore;
  readonly bodyLimit: number;
  /** Subjects who may publish, pin and retire (`MANIFOLD_SKILL_ADMINS`). */
  readonly admins: ReadonlySet<string>;
}

type AdminWork = (ctx: RouteContext, body: Record<string, unknown>, span: SpanTrace | undefined) => Promise<unknown>;

/** A JSON route whose work runs in its `skills.admin.<op>` span, child of the request's server span. */
function adminRoute(op: string, bodyLimit: number, work: AdminWork) {
  return jsonRoute(
    async (body, { ctx }) => {
      try {
        return await inSpan(adminSpanName(op), {}, (span) => work(ctx, body, span));
      } catch (error) {
        // RFC 9110: a 401 names the scheme to use.
        if (isManifoldError(error) && error.code === "UNAUTHORIZED") ctx.set("WWW-Authenticate", "Bearer");
        throw error;
      }
    },
    { bodyLimit },
  );
}

const notFound = (namespace: string, name: string, version: string | undefined): ManifoldError =>
  new ManifoldError(
    "NOT_FOUND",
    version === undefined
      ? `no active version of skill ${namespace}/${name} (unknown, or every version retired)`
      : `no version ${version} of skill ${namespace}/${name}`,
  );

export function addSkillsRoutes(add: AddRoute, { store, bodyLimit, admins }: SkillsRouteOptions): void {
  const skillPath = `${SKILLS_PATH}/:namespace/:name`;
  add(
    "GET",
    SKILLS_PATH,
    adminRoute("list", bodyLimit, async (ctx, _body, span) => {
      const namespace = typeof ctx.query["namespace"] === "string" && ctx.query["namespace"] !== "" ? ctx.query["namespace"] : undefined;
      if (namespace !== undefined) checkNamespace(namespace);
      span?.setAttributes(skillSpanAttributes(namespace));
      return { skills: await store.list(namespace) };
    }),
  );
  add(
    "GET",
    skillPath,
    adminRoute("get", bodyLimit, async (ctx, _body, span) => {
      const { namespace, name } = skillOfPath(ctx.params);
      const version = versionOfQuery(ctx.query);
      span?.setAttributes(skillSpanAttributes(namespace, name, version));
      const found = await store.get(namespace, name, version);
      if (found === undefined) throw notFound(namespace, name, version);
      span?.setAttributes(skillSpanAttributes(namespace, name, found.version));
      return found;
    }),
  );
  add(
    "GET",
    `${skillPath}/resources/*path`,
    adminRoute("resource", bodyLimit, async (ctx, _body, span) => {
      const { namespace, name } = skillOfPath(ctx.params);
      const path = ctx.params["path"];
      if (!isResourcePath(path))
        throw new ManifoldError("INVALID_INPUT", "the path does not name a resource inside the skill folder", {
          details: [{ pointer: "/path", message: "must be a relative path (no '..')" }],
        });
      const version = versionOfQuery(ctx.query) ?? (await store.get(namespace, name))?.version;
      if (version === undefined) throw notFound(namespace, name, undefined);
      span?.setAttributes(skillSpanAttributes(namespace, name, version, path));
      const resource = await store.resource(namespace, name, version, path);
      if (resource === undefined) throw new ManifoldError("NOT_FOUND", `no resource ${JSON.stringify(path)} in skill ${namespace}/${name}@${version}`);
      return resource;
    }),
  );
  addWriteRoutes(add, skillPath, { store, bodyLimit, admins });
}

/** Publish, pin and retire: each checks the caller is an admin before it reads anything. */
function addWriteRoutes(add: AddRoute, skillPath: string, { store, bodyLimit, admins }: SkillsRouteOptions): void {
  add(
    "POST",
    `${skillPath}/versions`,
    adminRoute("publish", bodyLimit, async (ctx, body, span) => {
      const skill = skillOfPath(ctx.params);
      span?.setAttributes(skillSpanAttributes(skill.namespace, skill.name));
      requireSkillAdmin(admins);
      const input = publishOf(skill, body);
      span?.setAttributes(skillSpanAttributes(skill.namespace, skill.name, typeof input.version === "string" ? input.version.slice(0, 64) : undefined));
      // Only the status depends on this read; the store alone decides a conflict.
      const checkable = typeof input.version === "string" && SKILL_VERSION.test(input.version);
      const existed = checkable && (await store.get(skill.namespace, skill.name, input.version)) !== undefined;
      const published = await store.publish(input);
      return existed ? published : jsonReply(201, published);
    }),
  );
  add(
    "PUT",
    `${skillPath}/pin`,
    adminRoute("pin", bodyLimit, async (ctx, body, span) => {
      const { namespace, name } = skillOfPath(ctx.params);
      span?.setAttributes(skillSpanAttributes(namespace, name));
      requireSkillAdmin(admins);
      const version = pinOf(body);
      span?.setAttributes(skillSpanAttributes(namespace, name, version));
      return store.pin(namespace, name, version);
    }),
  );
  add(
    "POST",
    `${skillPath}/versions/:version/retire`,
    adminRoute("retire", bodyLimit, async (ctx, _body, span) => {
      const { namespace, name } = skillOfPath(ctx.params);
      span?.setAttributes(skillSpanAttributes(namespace, name));
      requireSkillAdmin(admins);
      const version = checkVersion(ctx.params["version"], "/version");
      span?.setAttributes(skillSpanAttributes(namespace, name, version));
      return store.retire(namespace, name, version);
    }),
  );
}
