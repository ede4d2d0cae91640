/**
 * The Skills view's registry: every skill of the skill registry (`SkillStore`) with its versions,
 * pin and active version, and the runs each version shaped, found in the execution records'
 * `context.skills` evidence. The records are a bounded scan of the newest ones (RUN_SCAN_LIMIT),
 * shared by the requests of a few seconds: a record holds its step outputs, so reading 200 of them
 * on every poll of every open page would cost the store more than the view is worth.
 */
import type { ExecutionRecord, ExecutionStore } from "../orchestration/index.js";
import type { SkillStore, SkillSummary } from "../skills/index.js";
import { EXECUTIONS_OFF } from "./debug-routes.js";
import { skillEvidence } from "./skill-evidence.js";

/** Newest execution records looked at for skill evidence. */
export const RUN_SCAN_LIMIT = 200;
/** Runs listed per skill version (the count says how many the scan found). */
export const RUNS_PER_VERSION = 20;
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
  /** Newest published first. */
  readonly versions: readonly RegistryVersion[];
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

export interface SkillRunIndex {
  /** The runs a skill shaped, every version when `version` is omitted; newest first. */
  runsOf(namespace: string, name: string, version?: string): Promise<{ scan: RunScan; runs: SkillRun[] }>;
  /** The registry's skills (one namespace, or all) with their versions' states and runs. */
  registry(skills: SkillStore, namespace?: string): Promise<{ scan: RunScan; skills: RegistrySkill[] }>;
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
    async registry(skills, namespace) {
      const [summaries, found] = await Promise.all([skills.list(namespace), scan()]);
      return {
        scan: found.scan,
        skills: summaries.map((summary) => ({
          namespace: summary.namespace,
          name: summary.name,
          description: summary.description,
          ...(summary.active === undefined ? {} : { active: summary.active }),
          ...(summary.pinned === undefined ? {} : { pinned: summary.pinned }),
          versions: [...summary.versions].sort((a, b) => b.published_at.localeCompare(a.published_at)).map(versionOf(summary, found)),
        })),
      };
    },
  };
}
