/**
 * The Skills view's routes: the catalog each agent's planner reads (`/api/skills`), the skill
 * registry with versions, pins and the runs they shaped (`/api/skills/registry`), and one skill's
 * runs (`/api/skills/runs`). Skill bodies (instructions, resources) are not served here: the view
 * shows what shaped a run, the registry's admin API serves the content.
 */
import type { AddRoute, RouteContext } from "../component/index.js";
import { ManifoldError } from "../errors/index.js";
import type { ExecutionStore } from "../orchestration/served.js";
import { SKILL_NAME, SKILL_VERSION, type SkillStore } from "../skills/index.js";
import { limitOf, queryOf, sendValue, type RouteWrapper } from "./http.js";
import type { RegistryView } from "./registry-view.js";
import { createSkillRunIndex, MAX_REGISTRY_PAGE, REGISTRY_PAGE } from "./skill-registry.js";
import { readSkills } from "./skills.js";

function partOf(ctx: RouteContext, name: string, pattern: RegExp, required: boolean): string | undefined {
  const value = queryOf(ctx, name);
  if (value === undefined && !required) return undefined;
  if (value === undefined || !pattern.test(value)) {
    const message = name === "version" ? "a version: 1-64 letters, digits, '.', '+' or '-'" : "1-64 lowercase letters, digits or '-'";
    throw new ManifoldError("INVALID_INPUT", `${name} must be ${message}`, { details: [{ pointer: `/${name}`, message }] });
  }
  return value;
}

/** The view's filter: text a skill's `namespace/name` contains, matched lowercase. */
function textOf(ctx: RouteContext): string | undefined {
  const text = queryOf(ctx, "q")?.trim().toLowerCase();
  if (text === undefined || text === "") return undefined;
  if (!/^[^\p{Cc}]{1,129}$/u.test(text)) {
    const message = "1-129 characters without control characters";
    throw new ManifoldError("INVALID_INPUT", `q must be ${message}`, { details: [{ pointer: "/q", message }] });
  }
  return text;
}

export interface SkillSources {
  readonly view: RegistryView;
  readonly skills: SkillStore;
  readonly executions: ExecutionStore | undefined;
  readonly now: () => number;
}

export function addSkillRoutes(add: AddRoute, { view, skills, executions, now }: SkillSources, dataRoute: RouteWrapper): void {
  const index = createSkillRunIndex(executions, { now });
  add(
    "GET",
    "/api/skills",
    dataRoute(async (ctx) => sendValue(ctx, { agents: await readSkills(view.asRegistry) })),
  );

  add(
    "GET",
    "/api/skills/registry",
    dataRoute(async (ctx) => {
      const namespace = partOf(ctx, "namespace", SKILL_NAME, false);
      const text = textOf(ctx);
      const limit = limitOf(ctx, REGISTRY_PAGE, MAX_REGISTRY_PAGE);
      const { scan, skills: listed, total, truncated } = await index.registry(skills, { namespace, text, limit });
      sendValue(ctx, { namespace: namespace ?? null, q: text ?? null, runs: scan, total, truncated, skills: listed });
    }),
  );

  add(
    "GET",
    "/api/skills/runs",
    dataRoute(async (ctx) => {
      const namespace = partOf(ctx, "namespace", SKILL_NAME, true)!;
      const name = partOf(ctx, "name", SKILL_NAME, true)!;
      const version = partOf(ctx, "version", SKILL_VERSION, false);
      const { scan, runs } = await index.runsOf(namespace, name, version);
      sendValue(ctx, { namespace, name, version: version ?? null, scan, runs });
    }),
  );
}
