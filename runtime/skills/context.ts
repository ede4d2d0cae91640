/**
 * Skills at run time: the context source (`skills`) that, once per natural request, pins the
 * candidate skills of the agent's namespaces (`orchestrator.skills.pin_candidates`), chooses at most
 * three of them (lexically, or past a threshold with a `skill_selection` model call), activates them
 * (`orchestrator.skills.activate`: their instructions go into the planning and synthesis prompts as
 * instructions, each whole or not at all, within MANIFOLD_SKILL_BUDGET_BYTES) and reads the resources
 * those instructions reference (`orchestrator.skills.resolve_resources`). Its evidence, which skill
 * versions shaped the run and which resources they read, is kept in the execution record under
 * `context.skills`.
 *
 * The orchestrator knows nothing of skills: the skills feature registers this source with
 * `orchestrator.useContext`. A registry that fails makes the source fail, and the request is planned
 * without skills (the seam logs it).
 */
import type { ContextGathered, ContextRequest, ContextSection, ContextSource } from "../orchestration/served.js";
import type { AgentSpec } from "../spec/index.js";
import { SKILLS_SPAN } from "../telemetry/index.js";
import { systemClock, type Clock } from "../util/index.js";
import { createCandidateReader, type SkillCandidate } from "./context-candidates.js";
import { resolveResources } from "./context-resources.js";
import { readSkillsContextSettings, SKILLS_SOURCE, type SkillsContextSettings } from "./context-settings.js";
import { inSpan, skillAttributes } from "./context-telemetry.js";
import { chooseSkills } from "./selection.js";
import type { SkillEvidence, SkillStore, SkillVersion } from "./store/types.js";

export { SKILLS_SOURCE } from "./context-settings.js";

/** What the section opens with: the model reads the skills as the operator's instructions for this request. */
const PREAMBLE = "Instructions from the skills chosen for this request: follow them where they apply.";

export interface SkillsContextOptions {
  readonly store: SkillStore;
  /** The agent's spec: its `skills.namespaces` are where candidates come from (none: the source adds nothing). */
  readonly agent: Pick<AgentSpec, "skills">;
  /** @defaultValue process.env */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Overrides of the variables and defaults (tests, embedding code). */
  readonly settings?: Partial<SkillsContextSettings>;
  /** Time for the compact index's reuse. @defaultValue systemClock */
  readonly clock?: Clock;
}

/** A skill's instructions as the section shows them, under `### <name> (<namespace>@<version>)`. */
export function skillBlock(skill: SkillVersion): string {
  return `### ${skill.name} (${skill.namespace}@${skill.version})\n\n${skill.instructions.trim()}`;
}

const bytesOf = (text: string): number => Buffer.byteLength(text);

export function createSkillsContextSource({ store, agent, env = process.env, settings: given, clock = systemClock }: SkillsContextOptions): ContextSource {
  const settings = readSkillsContextSettings(env, given);
  const namespaces = [...new Set(agent.skills?.namespaces)];
  const candidates = createCandidateReader({ store, namespaces, ttlMs: settings.indexTtlMs, clock });

  const pin = (request: ContextRequest) =>
    inSpan(SKILLS_SPAN.PIN_CANDIDATES, {}, async (span) => {
      const { index, cached } = await candidates.read();
      const choice = await chooseSkills({
        index,
        request: request.request,
        threshold: settings.selectionThreshold,
        maxActive: settings.maxActive,
        llm: request.llm,
        record: request.record,
        signal: request.signal,
      });
      span?.setAttributes({
        "skills.candidate_count": index.candidates.length,
        "skills.chosen_count": choice.chosen.length,
        "skills.selection": choice.via,
        "skills.index_cached": cached,
      });
      for (const { given, corrected } of choice.corrections) span?.event("skills.selection.unknown_skill", { given, ...(corrected && { corrected }) });
      return choice.chosen;
    });

  return {
    name: SKILLS_SOURCE,
    budgetBytes: settings.budgetBytes,
    async gather(request: ContextRequest): Promise<ContextGathered | undefined> {
      if (namespaces.length === 0) return undefined;
      const chosen = await pin(request);
      if (chosen.length === 0) return undefined;
      const { active, leftOut, used } = await activate(store, chosen, settings.budgetBytes);
      const resources =
        active.length === 0
          ? { blocks: [], read: [] }
          : await inSpan(SKILLS_SPAN.RESOLVE_RESOURCES, {}, async (span) => {
              const resolved = await resolveResources(store, active, settings.budgetBytes - used);
              span?.setAttributes({ "skills.resource_count": resolved.read.flat().length });
              return resolved;
            });
      const evidence: SkillEvidence[] = [
        ...active.map((skill, i) => evidenceOf(skill, resources.read[i] ?? [])),
        ...leftOut.map((skill) => ({ ...evidenceOf(skill, []), left_out: "budget" as const })),
      ];
      if (active.length === 0) return { evidence };
      const text = [PREAMBLE, ...active.map((skill, i) => [skillBlock(skill), ...(resources.blocks[i] ?? [])].join("\n\n"))].join("\n\n");
      const section: ContextSection = { source: SKILLS_SOURCE, title: "Skills", text, trust: "instructions", synthesis: true };
      return { section, evidence };
    },
  };
}

interface Activated {
  readonly active: readonly SkillVersion[];
  readonly leftOut: readonly SkillVersion[];
  /** Bytes of the section so far: the preamble and the active skills' instructions. */
  readonly used: number;
}

/** Reads the chosen skills at their pinned versions and keeps those whose instructions fit the budget whole, in order. */
function activate(store: SkillStore, chosen: readonly SkillCandidate[], budgetBytes: number): Promise<Activated> {
  return inSpan(SKILLS_SPAN.ACTIVATE, {}, async (span) => {
    // The versions pinned for this request, read once: a publish or a pin meanwhile changes nothing below.
    const versions = await Promise.all(
      chosen.map((c) => inSpan(SKILLS_SPAN.REGISTRY_GET, skillAttributes(c), () => store.get(c.namespace, c.name, c.version))),
    );
    const active: SkillVersion[] = [];
    const leftOut: SkillVersion[] = [];
    let used = bytesOf(PREAMBLE);
    for (const skill of versions) {
      // Retired since the index was listed (it is reused a few seconds): never chosen again.
      if (skill === undefined || skill.retired_at !== undefined) continue;
      const size = bytesOf(skillBlock(skill)) + 2;
      // Whole or not at all: half an instruction can mislead more than none.
      if (used + size > budgetBytes) {
        leftOut.push(skill);
        span?.event("skills.skill_left_out", { ...skillAttributes(skill), "skills.bytes": size, "skills.reason": "budget" });
        continue;
      }
      used += size;
      active.push(skill);
      span?.event("skills.skill_activated", skillAttributes(skill));
    }
    span?.setAttributes({ "skills.active_count": active.length, "skills.left_out_count": leftOut.length });
    return { active, leftOut, used };
  });
}

function evidenceOf(skill: SkillVersion, resources: readonly string[]): SkillEvidence {
  return { namespace: skill.namespace, name: skill.name, version: skill.version, digest: skill.digest, resources };
}
