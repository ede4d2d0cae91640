/**
 * A deployment manifest plus the network's components → the values the deploy templates lay out.
 * Every number a template prints is decided here, and the timings come from the runtime's own
 * shutdown and registry constants, so the emitted grace periods and probes agree with what the
 * process does on SIGTERM.
 */
import { compareText, isBuiltinFile, type LoadedManifest, type RawDeployedComponent, type RawDeployment } from "../../../runtime/manifest/index.js";
import { DEFAULT_DRAIN_TIMEOUT_MS, DEFAULT_REGISTRATION_TTL_MS, DEFAULT_TASK_SHUTDOWN_TIMEOUT_MS } from "../../../runtime/spec/index.js";

/** kube-proxy and ingress controllers learn of a terminating pod asynchronously; preStop waits for them before SIGTERM. */
export const PRE_STOP_SECONDS = 5;
/** Telemetry's last export after the drain. */
const FLUSH_SECONDS = 5;
/** A manifest without `port`: any fixed port will do inside a pod. */
const DEFAULT_PORT = 8080;
const DEFAULT_NODE = "20";
const DEFAULT_BUILD = "npm run build --if-present";
/** The shipped scheduler's command in a project that depends on the package. */
const SHIPPED_SCHEDULER = { entry: "node_modules/agent-manifold/dist/generator/bin.js", args: ["scheduler"] };

export type Role = "api" | "worker" | "embedded";

/** One Kubernetes Deployment. */
export interface UnitModel {
  readonly name: string;
  readonly role: Role;
  /** `MANIFOLD_MODE`, when the agent's tasks are split across api and worker pods. */
  readonly mode?: "api" | "worker";
  readonly replicas: number;
  readonly graceSeconds: number;
}

export interface ComponentDeployModel {
  readonly name: string;
  readonly kind: "tool" | "agent";
  readonly network: string;
  readonly image: string;
  readonly port: number;
  readonly node: string;
  readonly build: string;
  /** `node` then the entry and its arguments: the Dockerfile's CMD, exec form. */
  readonly command: readonly string[];
  readonly configMap: string;
  /** Sorted by name. */
  readonly settings: readonly { readonly name: string; readonly value: string }[];
  /** Environment variables read from the network's Secret, key = name; sorted, REDIS_URL included. */
  readonly secrets: readonly string[];
  readonly resources: { readonly requests: Readonly<Record<string, string>>; readonly limits: Readonly<Record<string, string>> };
  readonly units: readonly UnitModel[];
  readonly probes: typeof PROBES;
  readonly preStopSeconds: number;
}

export interface NetworkDeployModel {
  readonly name: string;
  readonly namespace?: string;
  readonly redis: "bundled" | "external";
  readonly secretName: string;
  readonly redisName: string;
  readonly components: readonly ComponentDeployModel[];
  /** Every key the Secret must hold, sorted. */
  readonly secretKeys: readonly string[];
}

/**
 * Liveness fails after period × threshold = the registration TTL: a process hung for as long as the
 * registry takes to forget it is restarted then, not sooner (a slow GC pause is not a death) nor later.
 */
const PROBES = {
  startup: { periodSeconds: 2, timeoutSeconds: 2, failureThreshold: 30 },
  readiness: { periodSeconds: 5, timeoutSeconds: 2, failureThreshold: 2 },
  liveness: { periodSeconds: DEFAULT_REGISTRATION_TTL_MS / 3 / 1000, timeoutSeconds: 3, failureThreshold: 3 },
} as const;

/** SIGTERM → drain (≤ drain timeout) → extensions stop (a worker pool: its own timeout) → telemetry flush, after preStop. */
export function graceSeconds(role: Role): number {
  const stopMs = role === "api" ? DEFAULT_DRAIN_TIMEOUT_MS : Math.max(DEFAULT_DRAIN_TIMEOUT_MS, DEFAULT_TASK_SHUTDOWN_TIMEOUT_MS);
  return PRE_STOP_SECONDS + Math.ceil((DEFAULT_DRAIN_TIMEOUT_MS + stopMs) / 1000) + FLUSH_SECONDS;
}

function units(name: string, kind: string, hasTasks: boolean, settings: RawDeployedComponent): UnitModel[] {
  const replicas = settings.replicas ?? 1;
  const workers = settings.workers ?? 1;
  // A tool, an agent without tasks, or `workers: 0`: one Deployment whose pods serve and (for tasks) work.
  if (kind !== "agent" || !hasTasks || workers === 0) {
    const role: Role = hasTasks ? "embedded" : "api";
    return [{ name, role, replicas, graceSeconds: graceSeconds(role) }];
  }
  return [
    { name, role: "api", mode: "api", replicas, graceSeconds: graceSeconds("api") },
    { name: `${name}-worker`, role: "worker", mode: "worker", replicas: workers, graceSeconds: graceSeconds("worker") },
  ];
}

function componentModel(deployment: RawDeployment, manifest: LoadedManifest): ComponentDeployModel {
  const spec = manifest.component!;
  const settings = deployment.components[spec.name] ?? {};
  const shipped = isBuiltinFile(manifest.file) && settings.entry === undefined;
  const entry = shipped ? SHIPPED_SCHEDULER.entry : settings.entry!;
  const args = settings.args ?? (shipped ? SHIPPED_SCHEDULER.args : []);
  const registry = deployment.image?.registry;
  const tag = deployment.image?.tag ?? spec.version;
  const port = spec.port ?? DEFAULT_PORT;
  const telemetry = deployment.telemetry?.endpoint;
  const settingsEnv: Record<string, string> = {
    ...settings.env,
    NODE_ENV: "production",
    OTEL_SERVICE_NAME: spec.name,
    PORT: String(port),
    ...(telemetry !== undefined && { OTEL_EXPORTER_OTLP_ENDPOINT: telemetry }),
  };
  const hasTasks = (spec.agent?.tasks.length ?? 0) > 0;
  const resources = settings.resources ?? {};
  return {
    name: spec.name,
    kind: spec.kind,
    network: deployment.name,
    image: `${registry === undefined ? "" : `${registry}/`}${spec.name}:${tag}`,
    port,
    node: deployment.node ?? DEFAULT_NODE,
    build: deployment.build ?? DEFAULT_BUILD,
    command: ["node", entry, ...args],
    configMap: `${spec.name}-config`,
    settings: Object.entries(settingsEnv)
      .map(([name, value]) => ({ name, value }))
      .sort((a, b) => compareText(a.name, b.name)),
    secrets: [...new Set(["REDIS_URL", ...(settings.secrets ?? [])])].sort(compareText),
    resources: {
      requests: { cpu: resources.cpu ?? "100m", memory: resources.memory ?? "128Mi" },
      limits: { ...(resources.cpu_limit !== undefined && { cpu: resources.cpu_limit }), memory: resources.memory_limit ?? "256Mi" },
    },
    units: units(spec.name, spec.kind, hasTasks, settings),
    probes: PROBES,
    preStopSeconds: PRE_STOP_SECONDS,
  };
}

/** The network: every tool and agent of the project (the shipped ones it uses included). */
export function networkModel(deployment: RawDeployment, manifests: readonly LoadedManifest[]): NetworkDeployModel {
  const components = manifests.filter((m) => m.component !== undefined).map((m) => componentModel(deployment, m));
  const redis = deployment.redis ?? "bundled";
  const secretKeys = new Set(components.flatMap((c) => c.secrets));
  if (redis === "bundled") secretKeys.add("REDIS_PASSWORD");
  return {
    name: deployment.name,
    ...(deployment.namespace !== undefined && { namespace: deployment.namespace }),
    redis,
    secretName: `${deployment.name}-secrets`,
    redisName: `${deployment.name}-redis`,
    components,
    secretKeys: [...secretKeys].sort(compareText),
  };
}
