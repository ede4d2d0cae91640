/**
 * Who is calling: set once per inbound request by the component's inbound check (a verified bearer
 * token, a verified agent token, or identity headers from a trusted gateway), and read by whatever
 * decides ownership (chat sessions, schedules, checkpoints) through `callerIdentity()`. Never taken
 * from a propagated header: it lives in the request scope, not in the headers an outbound call copies.
 */
import type { IncomingMessage } from "node:http";

export interface Identity {
  readonly subject: string;
  readonly kind: "user" | "agent";
  /** `token`: a verified bearer or agent token; `header`: a trusted gateway's header; `anonymous`: nothing proven. */
  readonly via: "token" | "header" | "anonymous";
}

/** The caller nothing identifies: the default user of chat sessions, owner of what anonymous calls make. */
export const ANONYMOUS: Identity = Object.freeze({ subject: "anonymous", kind: "user", via: "anonymous" });

/** The identity the inbound check settled on, by request object (the fast path and Koa share the IncomingMessage). */
const identities = new WeakMap<IncomingMessage, Identity>();

export function setRequestIdentity(req: IncomingMessage, identity: Identity): void {
  identities.set(req, identity);
}

/** The request's identity, anonymous when the inbound check found nothing (or did not run). */
export function requestIdentity(req: IncomingMessage): Identity {
  return identities.get(req) ?? ANONYMOUS;
}

/** Whether two identities are the same caller: kind and subject both (an agent named `bob` is not the user `bob`). */
export function sameIdentity(a: Identity, b: { readonly subject: string; readonly kind: string }): boolean {
  return a.kind === b.kind && a.subject === b.subject;
}

/**
 * How an identity is stored as a plain owner string (a chat session's `user_id`): users by their
 * subject, agents as `agent:<name>`, so an agent and a user of the same name own different things.
 */
export function ownerKey(identity: Pick<Identity, "subject" | "kind">): string {
  return identity.kind === "agent" ? `agent:${identity.subject}` : identity.subject;
}
