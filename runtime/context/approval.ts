/**
 * The approval gate of one request (issue 32, H2): which sensitive capabilities a request that no
 * human approved may not call, from wherever in the request the call is made (a plan step, or a
 * handler's typed client). The outbound caller asks it before every call and sends what is left of
 * it to the called component as `X-Manifold-Approval-Gate`, whose runtime installs it in its own
 * request scope: the gate follows the call across processes.
 *
 * The header can only ADD restrictions. Its entries gate; its `allow:` grants lift a gate only the
 * same header put up, once each, for one exact call (capability and parameters hash). So a forged
 * header grants nothing a request without the header would not have, and a stripped one only loses
 * the restrictions it carried (a caller able to strip it can call the component directly anyway).
 */
import { createHash } from "node:crypto";
import { HEADER } from "./headers.js";

/** The reserved header that carries the gate to the called component. */
export const APPROVAL_GATE_HEADER = HEADER.APPROVAL_GATE;

/** A header longer than this, or with more parts, is cut: the restrictions in it are what the runtime sent. */
const MAX_HEADER_LENGTH = 4096;
const MAX_PARTS = 64;
const ENTRY = /^[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)?$/;
const GRANT = /^allow:([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+):([0-9a-f]{64})$/;

/** JSON with object keys sorted, so equal parameters hash equally whatever their key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonical(item ?? null)).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const keys = Object.keys(value)
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`).join(",")}}`;
  }
  return JSON.stringify(value ?? null);
}

/** What binds an approval: the SHA-256 of the parameters' canonical JSON. */
export function parametersHash(parameters: unknown): string {
  return createHash("sha256").update(canonical(parameters)).digest("hex");
}

/** One approved call: `<component>.<capability>` with exactly these parameters (by hash). */
export interface ApprovedCall {
  readonly component: string;
  readonly capability: string;
  readonly hash: string;
}

/**
 * A grant handed on with one outbound call (`via`): the called component may make the approved call
 * once. Without `via`, the grant is for the outbound call itself (an approved plan step).
 */
export interface ApprovalGrant {
  readonly allow: ApprovedCall;
  readonly via?: ApprovedCall;
}

const callKey = ({ component, capability, hash }: ApprovedCall): string => `${component}.${capability}:${hash}`;

/**
 * A request's gate. Mutable on purpose, like `OutboundContext`: HITL adds its policy's entries when a
 * run starts and grants a resumed step its approval; restrictions are never removed, grants are used
 * once.
 */
export class ApprovalGate {
  // Each made on first use: every request scope holds a gate, most never gate anything, and a held
  // chat stream keeps its scope (and so its gate) for as long as it is open.
  #entries: Set<string> | undefined;
  /** Entries that came from the inbound header: only these can be lifted by the header's grants. */
  #fromHeader: Set<string> | undefined;
  /** Header grants: `<component>.<capability>:<hash>`, each usable once. */
  #headerGrants: Set<string> | undefined;
  /** Grants made in this process by HITL (trusted), each used once. */
  #grants: ApprovalGrant[] | undefined;

  /** Adds entries (`capability` or `component.capability`); restrictions only ever grow. */
  restrict(entries: Iterable<string>): this {
    for (const entry of entries) {
      if (!ENTRY.test(entry)) continue;
      (this.#entries ??= new Set()).add(entry);
      // Now also a local restriction: no header grant may lift it.
      this.#fromHeader?.delete(entry);
    }
    return this;
  }

  /** Records a grant made by this process's HITL on a resumed, approved step. */
  grant(grant: ApprovalGrant): void {
    (this.#grants ??= []).push(grant);
  }

  get empty(): boolean {
    return this.#entries === undefined || this.#entries.size === 0;
  }

  /** The entries a call matches (its capability's name, or `component.capability`). */
  matches(component: string | undefined, capability: string): string[] {
    if (this.#entries === undefined) return [];
    return [...this.#entries].filter((entry) => entry === capability || (component !== undefined && entry === `${component}.${capability}`));
  }

  /**
   * Whether a call may go out: an ungated call may; a gated one only with an unused grant for exactly
   * it, which it uses up. Answers the entries that refuse it (empty when it may go).
   */
  check(component: string | undefined, capability: string, parameters: unknown): string[] {
    const matches = this.matches(component, capability);
    if (matches.length === 0 || component === undefined) return matches;
    const key = callKey({ component, capability, hash: parametersHash(parameters) });
    const own = this.#grants?.findIndex((g) => g.via === undefined && callKey(g.allow) === key) ?? -1;
    if (own >= 0) {
      this.#grants!.splice(own, 1);
      return [];
    }
    // A header grant lifts only what the header itself put up: never the local policy's entries.
    const fromHeader = this.#fromHeader;
    if (this.#headerGrants?.has(key) && fromHeader !== undefined && matches.every((entry) => fromHeader.has(entry))) {
      this.#headerGrants.delete(key);
      return [];
    }
    return matches;
  }

  /**
   * The header for a call that goes out (undefined when nothing is gated): every entry, plus the
   * grants handed on with exactly this call, which leave this gate (used once).
   */
  headerFor(component: string | undefined, capability: string, parameters: unknown): string | undefined {
    if (this.#entries === undefined || this.#entries.size === 0) return undefined;
    const parts = [...this.#entries];
    const grants = this.#grants;
    if (component !== undefined && grants?.some((g) => g.via !== undefined)) {
      const key = callKey({ component, capability, hash: parametersHash(parameters) });
      for (let i = grants.length - 1; i >= 0; i -= 1) {
        const { via, allow } = grants[i]!;
        if (via === undefined || callKey(via) !== key) continue;
        parts.push(`allow:${callKey(allow)}`);
        grants.splice(i, 1);
      }
    }
    return parts.join(",");
  }

  /** Installs an inbound header's entries and grants (its malformed parts are ignored). */
  addHeader(value: string | string[] | undefined): this {
    if (typeof value !== "string") return this;
    for (const raw of value.slice(0, MAX_HEADER_LENGTH).split(",").slice(0, MAX_PARTS)) {
      const part = raw.trim();
      const grant = GRANT.exec(part);
      if (grant !== null) (this.#headerGrants ??= new Set()).add(`${grant[1]}:${grant[2]}`);
      else if (ENTRY.test(part) && !this.#entries?.has(part)) {
        (this.#entries ??= new Set()).add(part);
        (this.#fromHeader ??= new Set()).add(part);
      }
    }
    return this;
  }

  /** Entry names only: safe to log. */
  toJSON(): { entries: string[] } {
    return { entries: this.#entries === undefined ? [] : [...this.#entries] };
  }
}

/** The gate of an inbound request from its header; an absent header is an empty gate, which HITL may still fill. */
export function approvalGateFrom(header: string | string[] | undefined): ApprovalGate {
  return new ApprovalGate().addHeader(header);
}
