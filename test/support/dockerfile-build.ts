/**
 * Builds a Dockerfile's image filesystem without Docker: parses it with dockerfile-ast and carries out
 * its instructions on this machine, one temporary folder per stage (the container path `/app` of
 * stage `build` is `<stage folder>/app`). COPY honours the Dockerfile's own `.dockerignore` and, as
 * Docker's does, keeps files' modification times (the manifold bin compares them); RUN runs
 * the command in the stage's WORKDIR with its ENV. What it cannot do is stated, not skipped: the base
 * image is this machine (its node must be the major the Dockerfile asks for) and USER is recorded, not
 * switched to. The result says how the image would start: its WORKDIR, ENV, CMD and HEALTHCHECK.
 */
import { spawnSync } from "node:child_process";
import { cp, mkdir, mkdtemp, readdir, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { DockerfileParser, type Instruction, type ModifiableInstruction, type PropertyInstruction } from "dockerfile-ast";

export interface BuiltImage {
  /** The final stage's filesystem root on this machine. */
  readonly root: string;
  /** Container path. */
  readonly workdir: string;
  readonly env: Readonly<Record<string, string>>;
  readonly user?: string;
  readonly exposed: readonly string[];
  readonly cmd: readonly string[];
  readonly healthcheck?: readonly string[];
  /** Base image of every stage, after ARG substitution. */
  readonly bases: readonly string[];
}

interface Stage {
  readonly name?: string;
  readonly root: string;
  workdir: string;
  env: Record<string, string>;
  user?: string;
  exposed: string[];
  cmd: string[];
  healthcheck?: string[] | undefined;
  readonly base: string;
}

/** Docker's .dockerignore patterns as regular expressions over `/`-separated context paths. */
export function ignoreMatcher(text: string): (path: string) => boolean {
  const patterns = text
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#"))
    .map((p) => {
      const source = p
        .replace(/^\/+/, "")
        .split(/(\*\*\/|\*|\?)/)
        .map((part) => (part === "**/" ? "(?:.*/)?" : part === "*" ? "[^/]*" : part === "?" ? "[^/]" : part.replace(/[.+^${}()|[\]\\]/g, "\\$&")))
        .join("");
      return new RegExp(`^${source}$`);
    });
  // A path is excluded when it, or a folder it is in, matches.
  return (path) => {
    const parts = path.split("/");
    for (let i = 1; i <= parts.length; i++) {
      const prefix = parts.slice(0, i).join("/");
      if (patterns.some((p) => p.test(prefix))) return true;
    }
    return false;
  };
}

async function copyContext(context: string, ignored: (path: string) => boolean, target: string, from = ""): Promise<void> {
  for (const entry of await readdir(join(context, from), { withFileTypes: true })) {
    const path = from === "" ? entry.name : `${from}/${entry.name}`;
    if (ignored(path)) continue;
    if (entry.isDirectory()) await copyContext(context, ignored, target, path);
    else {
      await mkdir(dirname(join(target, path)), { recursive: true });
      await cp(join(context, path), join(target, path), { verbatimSymlinks: true, preserveTimestamps: true });
    }
  }
}

function substitute(text: string, vars: Readonly<Record<string, string>>): string {
  return text.replace(/\$\{(\w+)\}|\$(\w+)/g, (whole, a: string | undefined, b: string | undefined) => vars[a ?? b ?? ""] ?? whole);
}

/** The exec form, parsed as Docker parses it (JSON); undefined for the shell form. */
function jsonArgs(instruction: Instruction): string[] | undefined {
  const content = (instruction.getArgumentsContent() ?? "").trim();
  if (!content.startsWith("[")) return undefined;
  const value: unknown = JSON.parse(content);
  if (!Array.isArray(value) || !value.every((v) => typeof v === "string")) throw new Error(`${instruction.getKeyword()}: not a JSON array of strings`);
  return value;
}

function flag(instruction: Instruction, name: string): string | undefined {
  return (
    (instruction as ModifiableInstruction)
      .getFlags?.()
      .find((f) => f.getName() === name)
      ?.getValue() ?? undefined
  );
}

function inStage(stage: Stage, containerPath: string): string {
  const absolute = containerPath.startsWith("/") ? containerPath : join(stage.workdir, containerPath);
  return join(stage.root, absolute);
}

export interface BuildOptions {
  /** The build context (the project root). */
  readonly context: string;
  /** Path of the Dockerfile; its `<name>.dockerignore` beside it applies. */
  readonly dockerfile: string;
  /** Added to every RUN's environment (for example npm's prefer-offline, the stand-in for a layer cache). */
  readonly runEnv?: Readonly<Record<string, string>>;
  readonly log?: (line: string) => void;
}

export async function buildDockerfile({ context, dockerfile, runEnv = {}, log = () => {} }: BuildOptions): Promise<BuiltImage> {
  const text = await readFile(dockerfile, "utf8");
  const ignoreText = await readFile(`${dockerfile}.dockerignore`, "utf8").catch(() => "");
  const ignored = ignoreMatcher(ignoreText);
  const parsed = DockerfileParser.parse(text);
  const globalArgs: Record<string, string> = {};
  for (const arg of parsed.getInitialARGs()) {
    const property = arg.getProperty();
    if (property !== null) globalArgs[property.getName()] = property.getValue() ?? "";
  }
  const stages: Stage[] = [];
  let stage: Stage | undefined;
  const work = await mkdtemp(join(tmpdir(), "manifold-image-"));
  for (const instruction of parsed.getInstructions()) {
    const keyword = instruction.getKeyword();
    const args = instruction.getArguments().map((a) => a.getValue());
    if (keyword === "ARG" && stage === undefined) continue;
    if (keyword === "FROM") {
      const base = substitute(args[0]!, globalArgs);
      const name = args[1]?.toUpperCase() === "AS" ? args[2] : undefined;
      const root = join(work, `stage-${stages.length}`);
      await mkdir(root, { recursive: true });
      stage = { ...(name !== undefined && { name }), root, workdir: "/", env: {}, exposed: [], cmd: [], base };
      stages.push(stage);
      continue;
    }
    if (stage === undefined) throw new Error(`${keyword} before FROM`);
    switch (keyword) {
      case "WORKDIR":
        stage.workdir = args[0]!.startsWith("/") ? args[0]! : join(stage.workdir, args[0]!);
        await mkdir(inStage(stage, stage.workdir), { recursive: true });
        break;
      case "ENV":
        for (const p of (instruction as PropertyInstruction).getProperties()) stage.env[p.getName()] = p.getValue() ?? "";
        break;
      case "COPY": {
        const fromName = flag(instruction, "from");
        const paths = args.filter((a) => !a.startsWith("--"));
        const dest = inStage(stage, paths.at(-1)!);
        const sources = paths.slice(0, -1);
        if (fromName !== undefined) {
          const from = stages.find((s) => s.name === fromName);
          if (from === undefined) throw new Error(`COPY --from=${fromName}: no such stage`);
          for (const source of sources) await cp(inStage(from, source), dest, { recursive: true, verbatimSymlinks: true, preserveTimestamps: true });
          break;
        }
        for (const source of sources) {
          if (source === ".") {
            await copyContext(context, ignored, dest);
            continue;
          }
          if (ignored(source)) throw new Error(`COPY ${source}: excluded by the .dockerignore`);
          const target = paths.at(-1)!.endsWith("/") ? join(dest, source) : dest;
          await mkdir(dirname(target), { recursive: true });
          await cp(join(context, source), target, { recursive: true, verbatimSymlinks: true, preserveTimestamps: true });
        }
        break;
      }
      case "RUN": {
        const argv = jsonArgs(instruction) ?? ["/bin/sh", "-c", instruction.getArgumentsContent() ?? ""];
        log(`RUN ${argv.join(" ")}`);
        const result = spawnSync(argv[0]!, argv.slice(1), {
          cwd: inStage(stage, stage.workdir),
          env: { PATH: process.env["PATH"] ?? "", HOME: process.env["HOME"] ?? "", ...stage.env, ...runEnv },
          encoding: "utf8",
          timeout: 600_000,
        });
        if (result.status !== 0)
          throw new Error(`RUN ${argv.join(" ")} exited ${result.status}:\n${result.stdout.slice(-2000)}\n${result.stderr.slice(-4000)}`);
        break;
      }
      case "USER":
        stage.user = args[0]!;
        break;
      case "EXPOSE":
        stage.exposed.push(...args);
        break;
      case "CMD":
        stage.cmd = jsonArgs(instruction) ?? ["/bin/sh", "-c", instruction.getArgumentsContent() ?? ""];
        break;
      case "HEALTHCHECK": {
        const content = instruction.getArgumentsContent() ?? "";
        const json = /\bCMD\s+(\[.*\])\s*$/.exec(content);
        stage.healthcheck = json === null ? undefined : (JSON.parse(json[1]!) as string[]);
        break;
      }
      default:
        throw new Error(`the emulator does not carry out ${keyword}`);
    }
  }
  const last = stages.at(-1)!;
  return {
    root: last.root,
    workdir: last.workdir,
    env: last.env,
    ...(last.user !== undefined && { user: last.user }),
    exposed: last.exposed,
    cmd: last.cmd,
    ...(last.healthcheck !== undefined && { healthcheck: last.healthcheck }),
    bases: stages.map((s) => s.base),
  };
}

/** Where a container path of the built image is on this machine. */
export function hostPath(image: BuiltImage, containerPath: string): string {
  return join(image.root, containerPath.startsWith("/") ? containerPath : join(image.workdir, containerPath));
}
