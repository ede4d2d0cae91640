/**
 * The Skills view's registry: every skill of the skill registry (`SkillStore`) with its versions,
 * pin and active version, and the runs each version shaped, found in the execution records'
 * `context.skills` evidence. The records are a bounded scan of the newest ones (RUN_SCAN_LIMIT),
 * shared by the requests of a few seconds: a record holds its step outputs, so reading 200 of them
 * on every poll of every open page would cost the store more than the view is worth.
 */
import type { ExecutionRecord, ExecutionStore } from "../orchestration/served.js";
import type { SkillStore, SkillSummary } from "../skills/index.js";
import { EXECUTIONS_OFF } from "./debug-routes.js";
import { skillEvidence } from "./skill-evidence.js";

/** Newest execution records looked at for skill evidence. */
export const RUN_SCAN_LIMIT = 200;
/** Runs listed per skill version (the count says how many the scan found). */
export const RUNS_PER_VERSION = 20;
/** Versions listed per skill: the newest, plus the active and pinned ones wherever they are (a skill may keep 100). */
export const VERSIONS_PER_SKILL = 20;
/** Skills in one answer by default and at most: the registry lists up to 1,000, each with its versions, on every poll. */
export const REGISTRY_PAGE = 100;
export const MAX_REGISTRY_PAGE = 1000;
const SCAN_FRESH_MS = 5000;

/** One run a skill version shaped, as the Execution DAG view links to it. */
export interface SkillRun {
  readonly plan_id: string;
  readonly request_id?: string;
  readonly status: ExecutionRecord["status"];
  readonly mode: ExecutionRecord["mode"];
  readonly started_at: string;
  readonly version: string;
  /** Resources the run read into its prompt, by path. */
  readonly resources: readonly string[];
}

export interface RunScan {
  /** False when execution records are off: no run can be shown. */
  readonly enabled: boolean;
  readonly message?: string;
  /** Records looked at (at most `limit`). */
  readonly scanned: number;
  readonly limit: number;
}

export interface RegistryVersion {
  readonly version: string;
  readonly digest: string;
  readonly published_at: string;
  readonly retired_at?: string;
  /** `active`: what a request uses now; `retired`: never chosen again; `published`: neither. */
  readonly state: "active" | "published" | "retired";
  readonly pinned: boolean;
  /** Runs of the scan this version shaped, at most RUNS_PER_VERSION, newest first. */
  readonly runs: readonly SkillRun[];
  readonly run_count: number;
}

export interface RegistrySkill {
  readonly namespace: string;
  readonly name: string;
  readonly description: string;
  readonly active?: string;
  readonly pinned?: string;
  /**
   * Newest first in the registry's order (semver precedence, then publish order: the order the active
   * version is chosen in, as the admin API lists them), at most VERSIONS_PER_SKILL (the active and
   * pinned ones always among them).
   */
  readonly versions: readonly RegistryVersion[];
  readonly version_count: number;
}

/** Which skills one answer lists. */
export interface RegistryQuery {
  readonly namespace?: string | undefined;
  /** Lowercase text that `namespace/name` contains. */
  readonly text?: string | undefined;
  readonly limit: number;
}

export interface RegistryPage {
  readonly scan: RunScan;
  readonly skills: RegistrySkill[];
  /** Skills that matched, listed or not. */
  readonly total: number;
  readonly truncated: boolean;
}

/** The runs of one scan by `namespace/name@version`, newest first. */
interface ScanResult {
  readonly scan: RunScan;
  readonly runs: ReadonlyMap<string, readonly SkillRun[]>;
}

const keyOf = (namespace: string, name: string, version: string): string => JSON.stringify([namespace, name, version]);

function indexRuns(records: readonly ExecutionRecord[]): Map<string, SkillRun[]> {
  const runs = new Map<string, SkillRun[]>();
  // Newest first, as the store lists them.
  for (const record of records) {
    for (const evidence of skillEvidence(record)) {
      const key = keyOf(evidence.namespace, evidence.name, evidence.version);
      const list = runs.get(key) ?? [];
      if (list.some((run) => run.plan_id === record.plan_id)) continue;
      list.push({
        plan_id: record.plan_id,
        ...(record.request_id === undefined ? {} : { request_id: record.request_id }),
        status: record.status,
        mode: record.mode,
        started_at: record.started_at,
        version: evidence.version,
        resources: evidence.resources,
      });
      runs.set(key, list);
    }
  }
  return runs;
}

/** The newest VERSIONS_PER_SKILL versions, the active and pinned ones kept in place of the oldest of them. */
function shownVersions(summary: SkillSummary): SkillSummary["versions"][number][] {
  // The summary lists them newest first already; a re-sort by publish time would disagree with it (a hotfix of an old line).
  const newest = summary.versions;
  const kept = new Set([summary.active, summary.pinned].filter((v): v is string => v !== undefined));
  const shown = newest.slice(0, VERSIONS_PER_SKILL);
  const missing = newest.filter((v) => kept.has(v.version) && !shown.includes(v));
  return missing.length === 0 ? shown : [...shown.slice(0, VERSIONS_PER_SKILL - missing.length), ...missing];
}

export interface SkillRunIndex {
  /** The runs a skill shaped, every version when `version` is omitted; newest first. */
  runsOf(namespace: string, name: string, version?: string): Promise<{ scan: RunScan; runs: SkillRun[] }>;
  /** The registry's skills (one namespace, or all; those matching the text) with their versions' states and runs. */
  registry(skills: SkillStore, query: RegistryQuery): Promise<RegistryPage>;
}

export function createSkillRunIndex(executions: ExecutionStore | undefined, { now = Date.now }: { readonly now?: () => number } = {}): SkillRunIndex {
  let last: { at: number; result: ScanResult } | undefined;
  let loading: Promise<ScanResult> | undefined;

  const scan = (): Promise<ScanResult> => {
    if (executions === undefined)
      return Promise.resolve({ scan: { enabled: false, message: EXECUTIONS_OFF, scanned: 0, limit: RUN_SCAN_LIMIT }, runs: new Map() });
    if (last !== undefined && now() - last.at < SCAN_FRESH_MS) return Promise.resolve(last.result);
    // One scan at a time, however many requests find the last one old.
    loading ??= executions
      .list({ limit: RUN_SCAN_LIMIT })
      .then((records) => {
        const result = { scan: { enabled: true, scanned: records.length, limit: RUN_SCAN_LIMIT }, runs: indexRuns(records) };
        last = { at: now(), result };
        return result;
      })
      .finally(() => {
        loading = undefined;
      });
    return loading;
  };

  const versionOf =
    (summary: SkillSummary, found: ScanResult) =>
    (v: SkillSummary["versions"][number]): RegistryVersion => {
      const runs = found.runs.get(keyOf(summary.namespace, summary.name, v.version)) ?? [];
      return {
        version: v.version,
        digest: v.digest,
        published_at: v.published_at,
        ...(v.retired_at === undefined ? {} : { retired_at: v.retired_at }),
        state: v.retired_at !== undefined ? "retired" : v.version === summary.active ? "active" : "published",
        pinned: v.version === summary.pinned,
        runs: runs.slice(0, RUNS_PER_VERSION),
        run_count: runs.length,
      };
    };

  return {
    async runsOf(namespace, name, version) {
      const found = await scan();
      const runs: SkillRun[] = [];
      for (const [key, list] of found.runs) {
        const [ns, n, v] = JSON.parse(key) as [string, string, string];
        if (ns === namespace && n === name && (version === undefined || v === version)) runs.push(...list);
      }
      runs.sort((a, b) => Date.parse(b.started_at) - Date.parse(a.started_at));
      return { scan: found.scan, runs: runs.slice(0, RUN_SCAN_LIMIT) };
    },
    async registry(skills, { namespace, text, limit }) {
      const [summaries, found] = await Promise.all([skills.list(namespace), scan()]);
      const matching = text === undefined ? summaries : summaries.filter((s) => `${s.namespace}/${s.name}`.includes(text));
      return {
        scan: found.scan,
        total: matching.length,
        truncated: matching.length > limit,
        skills: matching.slice(0, limit).map((summary) => ({
          namespace: summary.namespace,
          name: summary.name,
          description: summary.description,
          ...(summary.active === undefined ? {} : { active: summary.active }),
          ...(summary.pinned === undefined ? {} : { pinned: summary.pinned }),
          versions: shownVersions(summary).map(versionOf(summary, found)),
          version_count: summary.versions.length,
        })),
      };
    },
  };
}
