/**
 * The skills feature's running part: the skill registry (Redis when configured, else this process's
 * memory), the agent's bundled skills published to it at start, the skills context source registered
 * with the orchestrator (context.ts: per natural request, the skills to follow), and the admin routes
 * under `/skills` (routes.ts).
 */
import type { FeatureBuild, FeatureServices } from "../feature/index.js";
import { isManifoldError } from "../errors/index.js";
import type { Logger } from "../telemetry/index.js";
import { skillAdminsOf } from "./admin.js";
import { createSkillsContextSource } from "./context.js";
import { addSkillsRoutes } from "./routes.js";
import type { SkillsServeOptions } from "./serve-options.js";
import { createSkillStore, type SkillStore, type SkillVersionInput } from "./store/index.js";

/** What the registry answers about one skill; anything else is the registry failing as a whole. */
const REFUSALS: ReadonlySet<string> = new Set(["CONFLICT", "INVALID_INPUT", "PAYLOAD_TOO_LARGE", "LIMIT_EXCEEDED"]);

/** A bundled skill as gen embeds it: the version's content and the digest gen computed. */
type Bundled = SkillVersionInput & { readonly digest?: string };

/**
 * Publishes each bundled version; an agent restarted with the same skills changes nothing (the same
 * digest is a no-op). A changed SKILL.md under an unchanged version is refused by the registry
 * (versions are immutable) and logged as an error naming the skill: the agent keeps serving, with the
 * version the registry already holds, until the skill's version is raised.
 */
export async function publishBundled(store: SkillStore, bundled: readonly Bundled[], log: Logger): Promise<number> {
  let published = 0;
  for (const skill of bundled) {
    const id = `${skill.namespace}/${skill.name}@${skill.version}`;
    try {
      const stored = await store.publish(skill);
      published++;
      if (skill.digest !== undefined && stored.digest !== skill.digest)
        log.warn(`bundled skill ${id}: the registry's digest differs from the one gen embedded; regenerate the agent (npm run gen)`);
    } catch (error) {
      const code = isManifoldError(error) ? error.code : "INTERNAL";
      if (!REFUSALS.has(code)) {
        // The store itself failed (unreachable, say): the next skills would wait as long each.
        log.error(`bundled skills not published: the skill registry failed (${code}); restart the agent once its store is reachable`, { skill: id, code });
        break;
      }
      const why =
        code === "CONFLICT"
          ? "the registry already holds this version with other content (versions are immutable): raise the skill's version in its SKILL.md and regenerate"
          : `the registry refused it (${code})`;
      log.error(`bundled skill ${id} was not published: ${why}`, { skill: id, code });
    }
  }
  return published;
}

export async function createSkillsExtension({ skills: options = {} }: SkillsServeOptions, services: FeatureServices): Promise<FeatureBuild> {
  const { agent, env } = services;
  const log = services.log("skills");
  const store = options.store ?? createSkillStore({ env });
  services.orchestration.orchestrator.useContext(createSkillsContextSource({ store, agent, env }));
  const admins = skillAdminsOf(env);
  return {
    extension: {
      name: "skills",
      routes(add, { bodyLimit }) {
        addSkillsRoutes(add, { store, bodyLimit, admins });
      },
      async start() {
        // Before the agent registers in discovery, so its first request already finds its skills.
        await publishBundled(store, agent.skills?.bundled ?? [], log);
      },
      async stop() {
        if (options.store === undefined) await store.close();
      },
    },
  };
}
