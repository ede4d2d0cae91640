import type { AddressInfo } from "node:net";
import { networkInterfaces } from "node:os";

/**
 * The address a served component registers: the option, else `MANIFOLD_ADVERTISE_ADDRESS`, else
 * what it listens on. A wildcard listener is reachable from other hosts, so it advertises the first
 * non-internal IPv4 address (loopback when there is none, e.g. in a sandbox).
 */
export function advertisedAddress(listening: AddressInfo, option: string | undefined, env = process.env): string {
  const configured = option ?? (env["MANIFOLD_ADVERTISE_ADDRESS"] || undefined);
  if (configured !== undefined) return configured;
  const { address } = listening;
  if (address !== "0.0.0.0" && address !== "::") return address;
  for (const list of Object.values(networkInterfaces())) {
    for (const candidate of list ?? []) if (candidate.family === "IPv4" && !candidate.internal) return candidate.address;
  }
  return address === "::" ? "::1" : "127.0.0.1";
}
