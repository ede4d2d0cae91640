/**
 * Who may change the skill registry, and what an admin request may say. Reading is open to whoever
 * the agent's routes serve (its bearer check, when one is configured, applies as on every feature
 * route); publishing, pinning and retiring change what every later request of every agent drawing on
 * the namespace follows, so they need a proven identity listed in `MANIFOLD_SKILL_ADMINS`, the way
 * `MANIFOLD_HITL_APPROVERS` names who may decide any checkpoint.
 */
import { callerIdentity, ownerKey } from "../context/index.js";
import { ManifoldError, type ErrorDetail } from "../errors/index.js";
import { checkSkillName, checkVersion, type SkillVersionInput } from "./store/index.js";

export const SKILL_ADMINS_ENV = "MANIFOLD_SKILL_ADMINS";

/** `MANIFOLD_SKILL_ADMINS`: comma-separated subjects (agents as `agent:<name>`) who may publish, pin and retire. */
export function skillAdminsOf(env: Readonly<Record<string, string | undefined>> = process.env): ReadonlySet<string> {
  return new Set(
    (env[SKILL_ADMINS_ENV] ?? "")
      .split(",")
      .map((subject) => subject.trim())
      .filter((subject) => subject !== ""),
  );
}

/**
 * The caller may change the registry: a proven identity (a verified token, or a trusted gateway's
 * header) listed among the admins. Nobody proven is 401, someone else 403; neither says who is listed.
 */
export function requireSkillAdmin(admins: ReadonlySet<string>): void {
  const caller = callerIdentity();
  if (caller.via === "anonymous")
    throw new ManifoldError(
      "UNAUTHORIZED",
      `changing the skill registry needs a proven identity listed in ${SKILL_ADMINS_ENV}: a verified bearer token (or X-User-ID from a trusted gateway)`,
    );
  if (!admins.has(ownerKey(caller))) throw new ManifoldError("FORBIDDEN", `only the subjects listed in ${SKILL_ADMINS_ENV} may publish, pin or retire skills`);
}

const pointerOf = (key: string): string => `/${key.replaceAll("~", "~0").replaceAll("/", "~1")}`;

/** Keys outside `allowed` (a `__proto__` among them: JSON.parse makes it an own key) as INVALID_INPUT details. */
function unknownKeys(value: Record<string, unknown>, allowed: readonly string[], at = ""): ErrorDetail[] {
  return Object.keys(value)
    .filter((key) => !allowed.includes(key))
    .map((key) => ({ pointer: `${at}${pointerOf(key)}`, message: "is not an allowed property" }));
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** A path's namespace and name: INVALID_INPUT naming the path parameter when either breaks the rule. */
export function skillOfPath(params: Record<string, string | undefined>): { namespace: string; name: string } {
  const { namespace, name } = params;
  checkSkillName(namespace, name);
  return { namespace: namespace!, name: name! };
}

/** An optional `?version=`: checked when given. */
export function versionOfQuery(query: Record<string, string | string[] | undefined>): string | undefined {
  const version = query["version"];
  if (version === undefined || version === "") return undefined;
  return checkVersion(version, "/version");
}

/**
 * `POST …/versions`: `{version, description, license?, instructions, resources?: [{path, text}]}`.
 * Only the shape is checked here; the store checks names, sizes and paths with the same pointers.
 */
export function publishOf(skill: { namespace: string; name: string }, body: Record<string, unknown>): SkillVersionInput {
  const details = unknownKeys(body, ["version", "description", "license", "instructions", "resources"]);
  const resources = body["resources"] ?? [];
  if (!Array.isArray(resources)) details.push({ pointer: "/resources", message: "must be an array of {path, text}" });
  else
    resources.forEach((resource: unknown, i) => {
      if (!isObject(resource)) return void details.push({ pointer: `/resources/${i}`, message: "must be an object {path, text}" });
      details.push(...unknownKeys(resource, ["path", "text"], `/resources/${i}`));
      if (typeof resource["text"] !== "string") details.push({ pointer: `/resources/${i}/text`, message: "is required: the file's text" });
    });
  if (details.length > 0) throw new ManifoldError("INVALID_INPUT", "the skill version is not valid", { details });
  return {
    ...skill,
    version: body["version"] as string,
    description: body["description"] as string,
    ...(body["license"] === undefined ? {} : { license: body["license"] as string }),
    instructions: body["instructions"] as string,
    resources: (resources as { path: string; text: string }[]).map(({ path, text }) => ({ path, bytes: Buffer.byteLength(text), text })),
  };
}

/** `PUT …/pin`: `{version}` pins it, `{version: null}` removes the pin. */
export function pinOf(body: Record<string, unknown>): string | undefined {
  const details = unknownKeys(body, ["version"]);
  if (!("version" in body)) details.push({ pointer: "/version", message: "is required: the version to pin, or null to remove the pin" });
  if (details.length > 0) throw new ManifoldError("INVALID_INPUT", "the pin is not valid", { details });
  return body["version"] === null ? undefined : checkVersion(body["version"], "/version");
}
