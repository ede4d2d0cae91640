/**
 * Checks of a `kind: deployment` manifest against the network it deploys: every tool and agent has an
 * entry (the shipped scheduler may be left out), no entry names a component that is not there, and the
 * settings cannot collide with what the emitted manifests set themselves or put a secret in a ConfigMap.
 */
import { isBuiltinFile } from "./builtins.js";
import type { DiagnosticCode } from "./codes.js";
import { closest } from "./dataflow/index.js";
import { SECRET_NAME } from "./diagnostics/index.js";
import type { RawComponent, RawDeployment } from "./manifest-types.js";
import type { Path } from "./source-file.js";

/** Set by the emitted Deployments themselves; a deployment manifest may not set them too. */
export const DEPLOY_RESERVED_ENV: readonly string[] = [
  "MANIFOLD_ADVERTISE_ADDRESS",
  "MANIFOLD_MODE",
  "MANIFOLD_TELEMETRY_SERVICE_INSTANCE_ID",
  "NODE_ENV",
  "OTEL_EXPORTER_OTLP_ENDPOINT",
  "OTEL_SERVICE_NAME",
  "PORT",
  "REDIS_URL",
];

export interface DeployedComponent {
  readonly file: string;
  readonly manifest: RawComponent;
  /** Runs background workers (an agent feature says so: tasks), so `workers` may split it into api and worker pods. */
  readonly runsWorkers: boolean;
}

type Report = (code: DiagnosticCode, path: Path, message: string, at?: "key") => void;

export function checkDeployment(
  deployment: RawDeployment,
  components: ReadonlyMap<string, DeployedComponent>,
  declared: ReadonlySet<string>,
  report: Report,
): void {
  const listed = deployment.components;
  for (const [name, settings] of Object.entries(listed)) {
    const component = components.get(name);
    if (component === undefined) {
      // A component whose manifest is broken is reported there, not again here.
      if (declared.has(name)) continue;
      const guess = closest(name, [...components.keys()]);
      const hint = guess === undefined ? "" : ` (did you mean \`${guess}\`?)`;
      report("MF1317", ["components", name], `\`components\` names \`${name}\`, but the network has no tool or agent of that name${hint}`, "key");
      continue;
    }
    if (settings.entry === undefined && !isBuiltinFile(component.file)) {
      report(
        "MF1318",
        ["components", name],
        `\`${name}\` needs an \`entry\`: the JavaScript file its image runs with node (for example dist/serve/${name}.js)`,
        "key",
      );
    }
    if (name.endsWith("-")) report("MF1318", ["components", name], `\`${name}\` ends with '-', which a Kubernetes name cannot; rename the component`, "key");
    if (settings.workers !== undefined && !component.runsWorkers) {
      report("MF1318", ["components", name, "workers"], `\`workers\` splits an agent with tasks into api and worker pods; \`${name}\` has no tasks`);
    }
    for (const key of Object.keys(settings.env ?? {})) {
      if (DEPLOY_RESERVED_ENV.includes(key)) {
        report("MF1318", ["components", name, "env", key], `\`${key}\` is set by the emitted Deployment itself; remove it here`, "key");
      } else if (SECRET_NAME.test(key)) {
        report(
          "MF1318",
          ["components", name, "env", key],
          `\`${key}\` looks like a credential: list it under \`secrets\` so it is read from the Secret, not written into a ConfigMap`,
          "key",
        );
      } else if ((settings.secrets ?? []).includes(key)) {
        report("MF1318", ["components", name, "env", key], `\`${key}\` is both a setting and a secret; keep one`, "key");
      }
    }
    (settings.secrets ?? []).forEach((key, i) => {
      if (DEPLOY_RESERVED_ENV.includes(key))
        report("MF1318", ["components", name, "secrets", i], `\`${key}\` is set by the emitted Deployment itself; remove it here`);
    });
  }
  const missing = [...components.entries()].filter(([name, c]) => !Object.hasOwn(listed, name) && !isBuiltinFile(c.file)).map(([name]) => name);
  if (missing.length > 0) {
    const names = missing.map((n) => `\`${n}\``).join(", ");
    report("MF1317", ["components"], `every tool and agent of the network is deployed: add ${names} under \`components\``, "key");
  }
}
