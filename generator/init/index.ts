/**
 * `manifold init [dir] [--template minimal|agent|full] [--name N] [--yes] [--force]`: a new ESM,
 * strict-TypeScript project in dir (default: the current folder), its generated/ written by gen.
 * Loaded by cli.ts only when the command is init.
 */
import { basename, isAbsolute, join, relative, resolve } from "node:path";
import { parseArgs } from "node:util";
import type { CliIo } from "../cli-io.js";
import { occupiedBy, projectName, scaffoldFiles, TEMPLATES, type Template, writeScaffold } from "./scaffold.js";

export const INIT_HELP = `Usage: manifold init [dir] [--template minimal|agent|full] [--name N] [--yes] [--force]

Writes a new project into dir (default: the current folder): package.json ("type": "module"; scripts
gen, gen:check, dev, start, test, typecheck), a strict tsconfig, manifests, typed handlers, a test that
serves the network and calls its typed clients, .gitattributes, .gitignore, a CI workflow and a
README, then runs gen so generated/ exists. Then: cd dir && npm install && npm test.

  --template T   minimal (one tool), agent (one tool and one agent; the default) or full (the agent
                 with a workflow, a background task, chat and human approval)
  --name N       the package name (default: the folder's name)
  --yes          ask nothing: the defaults for what no flag gives
  --force        write into a folder that is not empty, replacing files of the same names

On a terminal without --template or --yes it asks for the template and the name.
Exit codes: 0 written, 1 gen failed, 2 usage error or a folder that is not empty.`;

export interface InitOptions {
  /** Ask on a terminal; tests pass streams. @defaultValue process.stdin, when it is a TTY */
  readonly input?: NodeJS.ReadableStream;
  readonly output?: NodeJS.WritableStream;
  readonly interactive?: boolean;
}

function parse(argv: readonly string[]) {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      template: { type: "string" },
      name: { type: "string" },
      yes: { type: "boolean", short: "y", default: false },
      force: { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (positionals.length > 1) throw new Error(`unexpected argument ${JSON.stringify(positionals[1])}`);
  const template = values.template;
  if (template !== undefined && !(TEMPLATES as readonly string[]).includes(template)) {
    throw new Error(`--template must be ${TEMPLATES.join(", ")}, not ${JSON.stringify(template)}`);
  }
  return { ...values, template: template as Template | undefined, dir: positionals[0] ?? "." };
}

/** The template and name: from the flags, else asked on a terminal, else the defaults. */
async function choose(args: ReturnType<typeof parse>, target: string, options: InitOptions) {
  const defaults = { template: args.template ?? ("agent" as const), name: args.name ?? basename(target) };
  const interactive = options.interactive ?? process.stdin.isTTY === true;
  if (!interactive || args.yes || args.template !== undefined) return defaults;
  const { ask } = await import("./prompt.js");
  return ask(options.input ?? process.stdin, options.output ?? process.stdout, defaults);
}

export async function runInit(argv: readonly string[], io: CliIo, options: InitOptions = {}): Promise<number> {
  let args: ReturnType<typeof parse>;
  try {
    args = parse(argv);
  } catch (error) {
    io.err(`manifold init: ${error instanceof Error ? error.message : String(error)}\nRun manifold init --help for usage.\n`);
    return 2;
  }
  if (args.help) {
    io.out(`${INIT_HELP}\n`);
    return 0;
  }
  const target = resolve(args.dir);
  const fromHere = relative(process.cwd(), target);
  // A folder outside the current one is named in full: `cd ../../tmp/x` helps nobody.
  const shown = fromHere === "" ? "." : fromHere.startsWith("..") || isAbsolute(fromHere) ? target : fromHere;
  const occupied = await occupiedBy(target);
  if (occupied.length > 0 && !args.force) {
    const listed = occupied.slice(0, 3).join(", ") + (occupied.length > 3 ? ", …" : "");
    io.err(`manifold init: ${shown} is not empty (${listed}); nothing written. Choose a new folder, or pass --force to write over files of the same names.\n`);
    return 2;
  }
  const { template, name } = await choose(args, target, options);
  const files = scaffoldFiles({ template, name: projectName(name) });
  await writeScaffold(target, files);
  io.out(`manifold init: wrote the ${template} template into ${shown} (${Object.keys(files).length} files)\n`);
  const { runCommand } = await import("../commands.js");
  const gen = await runCommand("gen", { manifestsDir: join(target, "manifests"), outDir: join(target, "generated"), check: false, format: "pretty" }, io);
  if (gen !== 0) return gen;
  const cd = shown === "." ? "" : `cd ${shown} && `;
  io.out(`\nNext: ${cd}npm install && npm test && npm start\n`);
  return 0;
}
