/**
 * Agent Skills as an agent feature: the manifest's `skills:` list (skill folders embedded at gen time,
 * registry namespaces), the skill registry's admin routes under `/skills`, and the skills the planner
 * follows per request. This module only describes the feature, so reading the feature list never
 * loads a skill store; `build` loads the running part.
 */
import type { AgentFeature } from "../feature/index.js";
import { checkSkills, normaliseSkills, skillsSchema } from "./manifest.js";
import { addSkillsPaths } from "./openapi.js";
import type { SkillsServeOptions } from "./serve-options.js";

// Its manifest part's types, re-exported so that every program that sees this descriptor also sees
// the module augmentations there (the agent spec and raw manifest assembled from the features).
export type * from "./manifest.js";

export type { SkillsServeOptions } from "./serve-options.js";

export const skillsFeature: AgentFeature<SkillsServeOptions> = {
  key: "skills",
  schema: skillsSchema,
  routePrefixes: ["/skills"],
  normalise: normaliseSkills,
  check: checkSkills,
  optionKeys: ["skills"],
  enabled: (agent) => agent.skills !== undefined,
  openapi: addSkillsPaths,
  async build(options, services) {
    const { createSkillsExtension } = await import("./extension.js");
    return createSkillsExtension(options, services);
  },
};
