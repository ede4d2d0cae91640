import { HEADER, checkHeader, isSkippedHeader } from "../context/index.js";

export type HeaderSource = Iterable<readonly [string, string]> | Readonly<Record<string, string>> | undefined;

function entries(source: HeaderSource): Iterable<readonly [string, string]> {
  if (source === undefined) return [];
  return Symbol.iterator in source ? (source as Iterable<readonly [string, string]>) : Object.entries(source);
}

export interface HeaderParts {
  readonly token: string | undefined;
  /** Configured first, then the per-request sources in order: later ones win. */
  readonly propagated: readonly HeaderSource[];
  readonly requestId: string;
  readonly stepId: string;
  readonly workflow: { readonly id: string; readonly stepId: string } | undefined;
  /** The calling agent, when the caller belongs to one. */
  readonly agentName?: string | undefined;
}

/**
 * The outgoing headers, lower-cased, in the documented order: Content-Type; Authorization (fixed);
 * propagated headers, each source overriding the ones before it, reserved names skipped; request
 * and step ids (fixed); workflow and step ids for workflow calls (fixed).
 */
export function buildHeaders({ token, propagated, requestId, stepId, workflow, agentName }: HeaderParts): Record<string, string> {
  const headers: Record<string, string> = { [HEADER.CONTENT_TYPE]: "application/json" };
  if (token !== undefined) headers[HEADER.AUTHORIZATION] = `Bearer ${token}`;
  for (const source of propagated) {
    for (const [name, value] of entries(source)) {
      checkHeader(name, value);
      const lower = name.toLowerCase();
      if (!isSkippedHeader(lower)) headers[lower] = value;
    }
  }
  headers[HEADER.REQUEST_ID] = checkHeader(HEADER.REQUEST_ID, requestId);
  headers[HEADER.STEP_ID] = checkHeader(HEADER.STEP_ID, stepId);
  if (agentName !== undefined) headers[HEADER.AGENT_NAME] = agentName;
  if (workflow !== undefined) {
    headers[HEADER.WORKFLOW_ID] = checkHeader(HEADER.WORKFLOW_ID, workflow.id);
    headers[HEADER.WORKFLOW_STEP_ID] = checkHeader(HEADER.WORKFLOW_STEP_ID, workflow.stepId);
  }
  return headers;
}
