/**
 * Runs the two OpenAPI linters issue 11 names, redocly (`recommended`) and spectral (`spectral:oas`), on a
 * set of documents and counts what each reports per file. Both are run once for all files: each start
 * costs about a second. Run directly (`tsx test/support/openapi-lint.ts <files…>`) it prints the counts,
 * which is how the closing note's before/after table is made.
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const bin = (name: string): string => new URL(`../../node_modules/.bin/${name}`, import.meta.url).pathname;

export interface Problem {
  readonly linter: "redocly" | "spectral";
  readonly file: string;
  readonly severity: "error" | "warning";
  readonly rule: string;
  readonly where: string;
  readonly message: string;
}

export interface Counts {
  readonly errors: number;
  readonly warnings: number;
}

/** The linters exit non-zero when they find errors; their JSON report is on stdout either way. */
async function stdoutOf(file: string, args: readonly string[]): Promise<string> {
  try {
    return (await run(file, args, { maxBuffer: 64 * 1024 * 1024, env: { ...process.env, REDOCLY_TELEMETRY: "off", NO_COLOR: "1" } })).stdout;
  } catch (error) {
    const { stdout } = error as { stdout?: string };
    if (typeof stdout === "string" && stdout.trim().length > 0) return stdout;
    throw error;
  }
}

async function redocly(files: readonly string[]): Promise<Problem[]> {
  const out = await stdoutOf(bin("redocly"), ["lint", "--extends=recommended", "--format=json", ...files]);
  // One JSON report per file, printed back to back (`}{`).
  const reports = JSON.parse(`[${out.slice(out.indexOf("{")).replace(/^\}\{$/gm, "},{")}]`) as {
    problems: { ruleId: string; severity: string; message: string; location: { source: { ref: string }; pointer: string }[] }[];
  }[];
  return reports
    .flatMap((report) => report.problems)
    .map((p) => ({
      linter: "redocly",
      file: resolve(p.location[0]?.source.ref ?? ""),
      severity: p.severity === "error" ? "error" : "warning",
      rule: p.ruleId,
      where: p.location[0]?.pointer ?? "",
      message: p.message,
    }));
}

async function spectral(files: readonly string[]): Promise<Problem[]> {
  const folder = await mkdtemp(join(tmpdir(), "manifold-spectral-"));
  try {
    const ruleset = join(folder, ".spectral.yaml");
    await writeFile(ruleset, 'extends: ["spectral:oas"]\n');
    const out = await stdoutOf(bin("spectral"), ["lint", "--quiet", "-r", ruleset, "-f", "json", ...files]);
    const trimmed = out.trim();
    const report = (trimmed.length === 0 ? [] : JSON.parse(trimmed.slice(trimmed.indexOf("[")))) as {
      code: string;
      severity: number;
      message: string;
      path: string[];
      source: string;
    }[];
    // Spectral's severities: 0 error, 1 warning, 2 information, 3 hint; the last two are not counted.
    return report
      .filter((p) => p.severity <= 1)
      .map((p) => ({
        linter: "spectral",
        file: resolve(p.source),
        severity: p.severity === 0 ? "error" : "warning",
        rule: p.code,
        where: `#/${p.path.join("/")}`,
        message: p.message,
      }));
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

/** Every problem both linters report for these files. */
export async function lintOpenApi(files: readonly string[]): Promise<Problem[]> {
  const [a, b] = await Promise.all([redocly(files), spectral(files)]);
  return [...a, ...b];
}

export function countsOf(problems: readonly Problem[], file: string, linter: Problem["linter"]): Counts {
  const mine = problems.filter((p) => p.file === resolve(file) && p.linter === linter);
  return { errors: mine.filter((p) => p.severity === "error").length, warnings: mine.filter((p) => p.severity === "warning").length };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const files = process.argv.slice(2);
  const problems = await lintOpenApi(files);
  for (const file of files) {
    const r = countsOf(problems, file, "redocly");
    const s = countsOf(problems, file, "spectral");
    const rules = [...new Set(problems.filter((p) => p.file === resolve(file)).map((p) => `${p.linter}:${p.rule}`))].sort();
    console.log(`${file}\tredocly ${r.errors}E/${r.warnings}W\tspectral ${s.errors}E/${s.warnings}W\t${rules.join(" ")}`);
  }
}
