/**
 * The skill registry port: namespaced, versioned Agent Skills (a `SKILL.md`'s front matter and
 * instructions, plus its text resources). `memory` and `redis` adapters implement it and one
 * contract suite (test/contract/skills.cases.ts) runs against memory, Redis and Redis Cluster.
 *
 * A skill is `<namespace>/<name>`; each published version is immutable. Which version a request
 * uses: the pinned one when there is a pin, else the newest not retired (semver order, then publish
 * order for equal or non-semver versions).
 */

/** One text file beside a `SKILL.md`, by its path relative to the skill folder (`references/checklist.md`). */
export interface SkillResource {
  readonly path: string;
  readonly bytes: number;
  /** Absent for a binary file: listed, never read into a prompt. */
  readonly text?: string;
}

/** What a skill version is, as published. */
export interface SkillVersionInput {
  readonly namespace: string;
  readonly name: string;
  /** The front matter's `version`, else `0.0.0`. */
  readonly version: string;
  readonly description: string;
  readonly license?: string;
  /** The Markdown body of `SKILL.md` (front matter removed). */
  readonly instructions: string;
  readonly resources: readonly SkillResource[];
}

export interface SkillVersion extends SkillVersionInput {
  /** sha256 of the instructions and resources, hex: the same content publishes to the same digest. */
  readonly digest: string;
  /** ISO 8601. */
  readonly published_at: string;
  /** Set once retired: never chosen again, still readable for the runs it shaped. */
  readonly retired_at?: string;
}

/** One skill's versions and pin, without bodies: what list and the compact index show. */
export interface SkillSummary {
  readonly namespace: string;
  readonly name: string;
  /** The version a request would use now (pinned, else newest not retired); absent when all are retired. */
  readonly active?: string;
  readonly pinned?: string;
  readonly description: string;
  readonly versions: readonly { readonly version: string; readonly digest: string; readonly published_at: string; readonly retired_at?: string }[];
}

export interface SkillStore {
  readonly kind: "memory" | "redis";
  /**
   * Publishes a version. The same namespace, name, version and digest again is a no-op (returns the
   * stored one: agents publish their bundled skills at every start); the same version with another
   * digest is CONFLICT (versions are immutable). Over the bounds: PAYLOAD_TOO_LARGE / LIMIT_EXCEEDED.
   */
  publish(input: SkillVersionInput): Promise<SkillVersion>;
  /**
   * One version, or the active one when `version` is omitted; undefined when there is none. Its
   * resources are listed by path and bytes without their texts (read one with `resource`).
   */
  get(namespace: string, name: string, version?: string): Promise<SkillVersion | undefined>;
  /** The skills of a namespace (every namespace when omitted), sorted by namespace then name; bounded. */
  list(namespace?: string): Promise<SkillSummary[]>;
  /** Pins a version (NOT_FOUND when it does not exist, CONFLICT when it is retired); `undefined` removes the pin. */
  pin(namespace: string, name: string, version: string | undefined): Promise<SkillSummary>;
  /** Retires a version (a pin on it is removed); NOT_FOUND when it does not exist. Idempotent. */
  retire(namespace: string, name: string, version: string): Promise<SkillSummary>;
  /** One resource of a version, read on demand; undefined when the version or path does not exist. */
  resource(namespace: string, name: string, version: string, path: string): Promise<SkillResource | undefined>;
  close(): Promise<void>;
}

/** The evidence a run keeps of one skill that shaped it (execution record `context.skills`). */
export interface SkillEvidence {
  readonly namespace: string;
  readonly name: string;
  readonly version: string;
  readonly digest: string;
  /** Resources read into the prompt, by path. */
  readonly resources: readonly string[];
  /**
   * Set when the skill was chosen but its instructions did not fit the request's skills budget
   * (MANIFOLD_SKILL_BUDGET_BYTES): it was left out whole and did not shape the run.
   */
  readonly left_out?: "budget";
}
