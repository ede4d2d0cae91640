/**
 * The project files around the manifests and the code: package.json, tsconfig, git and CI settings, the
 * dev script and a README. The project's name reaches package.json through JSON.stringify and the README
 * only after `projectName` reduced it to npm's name characters.
 */
import type { Template } from "./manifests.js";

export interface ProjectSettings {
  readonly name: string;
  readonly template: Template;
  /** The agent-manifold version the project depends on (the running package's own). */
  readonly manifoldVersion: string;
  /** The typescript and tsx ranges this agent-manifold is built and tested with. */
  readonly typescriptRange: string;
  readonly tsxRange: string;
  readonly nodeRange: string;
}

/** A folder name or --name as an npm package name: lower case, npm's characters only, never empty. */
export function projectName(given: string): string {
  const cleaned = given
    .toLowerCase()
    .replace(/[^a-z0-9._~-]+/g, "-")
    .replace(/^[-._~]+|[-._~]+$/g, "")
    .slice(0, 100);
  return cleaned === "" ? "manifold-app" : cleaned;
}

function packageJson(settings: ProjectSettings): string {
  const pkg = {
    name: settings.name,
    version: "0.1.0",
    private: true,
    type: "module",
    engines: { node: settings.nodeRange },
    scripts: {
      gen: "manifold gen",
      "gen:check": "manifold gen --check",
      dev: "node scripts/dev.js",
      start: "tsx src/start.ts",
      test: "node --import tsx --test test/network.test.ts",
      typecheck: "tsc -p tsconfig.json",
    },
    dependencies: { "agent-manifold": `^${settings.manifoldVersion}` },
    devDependencies: { tsx: settings.tsxRange, typescript: settings.typescriptRange },
  };
  return `${JSON.stringify(pkg, null, 2)}\n`;
}

/** The flags the generated code is checked under in agent-manifold's own tests. */
const TSCONFIG = {
  compilerOptions: {
    target: "ES2022",
    lib: ["ES2023"],
    module: "nodenext",
    moduleResolution: "nodenext",
    strict: true,
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    noImplicitOverride: true,
    verbatimModuleSyntax: true,
    skipLibCheck: true,
    noEmit: true,
  },
  include: ["src", "test", "generated"],
};

const DEV = `// \`npm run dev\`: manifold gen --watch regenerates generated/ whenever a manifest changes, and tsx watch
// restarts the network whenever a file it imports (a handler or generated code) changes. Ctrl-C stops both.
import { spawn } from "node:child_process";

const children = ["manifold gen --watch", "tsx watch src/start.ts"].map((command) => spawn(command, { stdio: "inherit", shell: true }));
for (const child of children) {
  child.on("exit", (code) => {
    for (const other of children) if (other !== child && other.exitCode === null) other.kill();
    process.exitCode = code ?? 0;
  });
}
`;

const CI = `name: ci
on: [push, pull_request]
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-node@v4
        with: { node-version: 22, cache: npm }
      - run: npm ci
      - run: npx manifold gen --check
      - run: npm run typecheck
      - run: npm test
`;

const WHAT: Readonly<Record<Template, string>> = {
  minimal: "one tool (`greeter`)",
  agent: "one tool (`greeter`) and one agent (`welcome-agent`) that calls it",
  full: "one tool (`greeter`) and one agent (`welcome-agent`) with a workflow, a background task, chat and human approval",
};

function readme(settings: ProjectSettings): string {
  return `# ${settings.name}

A [Manifold](https://www.npmjs.com/package/agent-manifold) network: ${WHAT[settings.template]}.

\`\`\`sh
npm install
npm test          # serves the network on free ports and calls it through the typed clients
npm start         # serves it on the manifests' ports
npm run dev       # the same, regenerating and restarting on every change
\`\`\`

- \`manifests/\`: one YAML file per component. Change one, then \`npm run gen\` (or keep \`npm run dev\` running).
- \`generated/\`: written by \`manifold gen\`; commit it, never edit it. CI runs \`manifold gen --check\`.
- \`src/handlers/\`: your code, typed by the generated modules. \`src/network.ts\` serves every component.
- \`test/\`: \`node:test\` suites run by \`npm test\`.
`;
}

/** Every file around the manifests and the code, by path. */
export function projectFiles(settings: ProjectSettings): Record<string, string> {
  return {
    "package.json": packageJson(settings),
    "tsconfig.json": `${JSON.stringify(TSCONFIG, null, 2)}\n`,
    ".gitignore": "node_modules/\ndist/\n*.log\n",
    ".gitattributes": "generated/** linguist-generated=true\n",
    ".github/workflows/ci.yml": CI,
    "scripts/dev.js": DEV,
    "README.md": readme(settings),
  };
}
