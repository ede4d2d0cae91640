/** The 1,000-component catalog the discovery benches register: deterministic, so every run registers the same one. */
import type { ComponentRegistration } from "../../runtime/discovery/index.js";
import type { CapabilityWire } from "../../runtime/spec/wire.js";

export const COMPONENTS = 1_000;
export const NAMES = 100; // 10 replicas each

function capabilitiesOf(nameIndex: number): CapabilityWire[] {
  return [0, 1, 2].map((k) => {
    const name = `cap_${(nameIndex * 7 + k * 31) % 150}`;
    return {
      name,
      description: `${name} of a component`,
      endpoint: `/api/capabilities/${name}`,
      type: "tool",
      internal: false,
      input_summary: { required_fields: [{ name: "query", type: "string", example: "Paris" }], optional_fields: [{ name: "limit", type: "integer" }] },
      output_summary: { required_fields: [{ name: "result", type: "object" }], optional_fields: [] },
    };
  });
}

export function catalog(): ComponentRegistration[] {
  return Array.from({ length: COMPONENTS }, (_, i) => {
    const n = i % NAMES;
    return {
      id: `svc-${n}-${String(i).padStart(8, "0")}`,
      name: `svc-${n}`,
      type: n % 10 === 0 ? "agent" : "tool",
      description: `component ${n}`,
      address: "10.0.0.1",
      port: 10_000 + i,
      metadata: { version: "1.0.0" },
      capabilities: capabilitiesOf(n),
      health: "healthy",
    };
  });
}
