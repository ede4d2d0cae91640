/**
 * The skills feature's running part: the skill registry (Redis when configured, else this process's
 * memory), the agent's bundled skills published to it at start, the skills context source registered
 * with the orchestrator (context.ts: per natural request, the skills to follow), and the admin routes
 * under `/skills` (routes.ts).
 */
import type { FeatureBuild, FeatureServices } from "../feature/index.js";
import { skillAdminsOf } from "./admin.js";
import { createBundledPublisher } from "./bundled.js";
import { createSkillsContextSource } from "./context.js";
import { addSkillsRoutes } from "./routes.js";
import type { SkillsServeOptions } from "./serve-options.js";
import { createSkillStore } from "./store/index.js";

export { publishBundled } from "./bundled.js";

export async function createSkillsExtension({ skills: options = {} }: SkillsServeOptions, services: FeatureServices): Promise<FeatureBuild> {
  const { agent, env } = services;
  const log = services.log("skills");
  const store = options.store ?? createSkillStore({ env });
  services.orchestration.orchestrator.useContext(createSkillsContextSource({ store, agent, env }));
  const admins = skillAdminsOf(env);
  const publisher = createBundledPublisher({ store, bundled: agent.skills?.bundled ?? [], log, ...(options.clock && { clock: options.clock }) });
  return {
    extension: {
      name: "skills",
      routes(add, { bodyLimit }) {
        addSkillsRoutes(add, { store, bodyLimit, admins });
      },
      async start() {
        // Before the agent registers in discovery, so its first request already finds its skills.
        await publisher.start();
      },
      async stop() {
        publisher.stop();
        if (options.store === undefined) await store.close();
      },
    },
  };
}
