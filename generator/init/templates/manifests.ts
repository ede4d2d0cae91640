/**
 * The manifests `manifold init` writes, per template. Fixed text: nothing the user types (the project's
 * name included) reaches a manifest, so no input can change what gen generates.
 */
export type Template = "minimal" | "agent" | "full";

export const TEMPLATES: readonly Template[] = ["minimal", "agent", "full"];

const SCHEMA = "# yaml-language-server: $schema=../node_modules/agent-manifold/manifest.schema.json";

const GREET = `  - name: greet
    description: Greets someone by name
    input:
      required:
        - { name: name, type: string, example: Ada, max_length: 100 }
      optional:
        - { name: excited, type: boolean, description: End with an exclamation mark }
    output:
      required:
        - { name: greeting, type: string }
`;

/** The full template's second capability: the one its agent may call only after a person approves. */
const FAREWELL = `  - name: farewell
    description: Says goodbye to someone (the agent asks a person first)
    input:
      required:
        - { name: name, type: string, example: Ada, max_length: 100 }
    output:
      required:
        - { name: message, type: string }
`;

function greeter(full: boolean): string {
  return `${SCHEMA}
kind: tool
name: greeter
description: Greets people
port: 8101
capabilities:
${GREET}${full ? FAREWELL : ""}`;
}

const WELCOME = `capabilities:
  - name: welcome
    description: Welcomes a guest, with a greeting from the greeter
    type: orchestrator
    input:
      required:
        - { name: guest, type: string, example: Ada, max_length: 100 }
    output:
      required:
        - { name: message, type: string }
`;

const AGENT = `${SCHEMA}
kind: agent
name: welcome-agent
description: Welcomes guests using the greeter tool
port: 8102
uses: [greeter]
${WELCOME}`;

/** The agent with every feature a first project meets: a workflow, a background task, chat and approval. */
const FULL_AGENT = `${SCHEMA}
kind: agent
name: welcome-agent
description: Welcomes guests using the greeter tool
port: 8102
uses: [greeter]
orchestration:
  workflows: [welcome-flow] # POST /orchestrate/welcome-flow
# /chat/* (SSE) and /query, answered by the chat handler in src/handlers/welcome-agent.ts
chat: true
# A call to greeter.farewell pauses its run until someone approves it on POST /hitl/command (or the dashboard).
hitl: { sensitive_capabilities: [farewell], expiry: 5m, default_action: reject }
tasks:
  - type: welcome_pack
    description: Greetings for a list of guests, built in the background with progress
    timeout: 2m
    input:
      required:
        - { name: guests, type: array, items: { type: string } }
    output:
      required:
        - { name: greetings, type: array, items: { type: string } }
${WELCOME}`;

const WORKFLOW = `${SCHEMA}
kind: workflow
name: welcome-flow
version: "1.0"
description: Greets a guest twice, calmly and then excitedly
inputs:
  guest: { type: string, required: true }
steps:
  - { name: calm, tool: greeter, action: greet, inputs: { name: "\${inputs.guest}" } }
  - name: excited
    tool: greeter
    action: greet
    depends_on: [calm]
    inputs: { name: "\${inputs.guest}", excited: true }
outputs:
  first: "\${steps.calm.output.greeting}"
  second: "\${steps.excited.output.greeting}"
`;

/** manifests/<file> → its text. */
export function manifestFiles(template: Template): Record<string, string> {
  if (template === "minimal") return { "manifests/greeter.yaml": greeter(false) };
  if (template === "agent") return { "manifests/greeter.yaml": greeter(false), "manifests/welcome-agent.yaml": AGENT };
  return { "manifests/greeter.yaml": greeter(true), "manifests/welcome-agent.yaml": FULL_AGENT, "manifests/welcome-flow.yaml": WORKFLOW };
}
