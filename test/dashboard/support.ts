/** What the dashboard suites share: registrations, checkpoints and records to put in the stores, and HTTP helpers. */
import type { ComponentRegistration } from "../../runtime/discovery/index.js";
import { newCheckpointId, type NewCheckpoint } from "../../runtime/hitl/index.js";
import type { CapabilityWire } from "../../runtime/spec/index.js";

export const TIMEOUT_MS = 10_000;

export interface Reply {
  readonly status: number;
  readonly headers: Headers;
  readonly body: any;
  readonly ms: number;
}

export async function request(url: string, init: RequestInit = {}): Promise<Reply> {
  const started = performance.now();
  const response = await fetch(url, { ...init, signal: AbortSignal.timeout(TIMEOUT_MS) });
  const text = await response.text();
  const ms = performance.now() - started;
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON (a page): kept as text.
  }
  return { status: response.status, headers: response.headers, body, ms };
}

export const get = (url: string): Promise<Reply> => request(url);
export const post = (url: string, body: unknown, headers: Record<string, string> = {}): Promise<Reply> =>
  request(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });

export function capability(name: string, overrides: Partial<CapabilityWire> = {}): CapabilityWire {
  return {
    name,
    description: `${name} of a component`,
    endpoint: `/api/capabilities/${name}`,
    type: "tool",
    internal: false,
    input_summary: { required_fields: [{ name: "query", type: "string", example: "Paris" }], optional_fields: [] },
    output_summary: { required_fields: [{ name: "secret_shape", type: "object" }], optional_fields: [] },
    ...overrides,
  };
}

export function registration(overrides: Partial<ComponentRegistration> = {}): ComponentRegistration {
  const name = overrides.name ?? "weather-service";
  return {
    id: `${name}-${Math.random().toString(16).slice(2, 10)}`,
    name,
    type: "tool",
    description: `${name}, for the dashboard suite`,
    address: "127.0.0.1",
    port: 9,
    metadata: { version: "1.0.0" },
    capabilities: [capability("lookup")],
    health: "healthy",
    ...overrides,
  };
}

/** A pending checkpoint as an agent would store it. */
export function checkpoint(overrides: Partial<NewCheckpoint> = {}): NewCheckpoint {
  const now = Date.now();
  return {
    checkpoint_id: newCheckpointId(),
    type: "step",
    agent_name: "fake-agent",
    request_mode: "non_streaming",
    plan: {
      plan_id: `custom-${process.hrtime.bigint()}`,
      original_request: '{"steps":[]}',
      mode: "workflow",
      steps: [
        { step_id: "quote", agent_name: "pay-tool", depends_on: [], metadata: { capability: "quote", parameters: {} }, on_error: "fail" },
        { step_id: "charge", agent_name: "pay-tool", depends_on: ["quote"], metadata: { capability: "charge", parameters: { amount: 42 } }, on_error: "fail" },
      ],
    },
    current_step: { step_id: "charge", index: 1 },
    resolved_parameters: { amount: 42 },
    decision: { reason: "charge is sensitive", sensitive_matches: ["charge"] },
    original_request: { steps: [] },
    user_context: { conversation_id: "conv-1" },
    original_request_id: "req-dashboard-1",
    completed_steps: [{ step_id: "quote", status: "completed", output: { amount: 42 } }],
    default_action: "reject",
    created_at: new Date(now).toISOString(),
    expires_at: new Date(now + 60_000).toISOString(),
    ...overrides,
  };
}
