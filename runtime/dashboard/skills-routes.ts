/**
 * The Skills view's routes: the catalog each agent's planner reads (`/api/skills`), the skill
 * registry with versions, pins and the runs they shaped (`/api/skills/registry`), and one skill's
 * runs (`/api/skills/runs`). Skill bodies (instructions, resources) are not served here: the view
 * shows what shaped a run, the registry's admin API serves the content.
 */
import type { AddRoute, RouteContext } from "../component/index.js";
import { ManifoldError } from "../errors/index.js";
import type { ExecutionStore } from "../orchestration/index.js";
import { SKILL_NAME, SKILL_VERSION, type SkillStore } from "../skills/index.js";
import { queryOf, sendValue, type RouteWrapper } from "./http.js";
import type { RegistryView } from "./registry-view.js";
import { createSkillRunIndex } from "./skill-registry.js";
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
      const { scan, skills: listed } = await index.registry(skills, namespace);
      sendValue(ctx, { namespace: namespace ?? null, runs: scan, skills: listed });
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
