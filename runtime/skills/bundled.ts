/**
 * The agent's bundled skills (gen embeds them in its spec) published to the registry at start. A
 * registry that is down at start is retried on a timer until it answers, so the skills arrive without
 * a restart; a skill the registry refuses is logged by name and never retried (its content must change).
 */
import { isManifoldError } from "../errors/index.js";
import type { Logger } from "../telemetry/index.js";
import { systemClock, type Clock, type ClockTimer } from "../util/index.js";
import type { SkillStore, SkillVersionInput } from "./store/index.js";

/** Pause between attempts while the registry is unreachable. */
export const RETRY_MS = 30_000;

export interface Publication {
  readonly published: number;
  /** The registry failed as a whole (unreachable): the rest were not tried. */
  readonly storeFailed: boolean;
}

/** What the registry answers about one skill; anything else is the registry failing as a whole. */
const REFUSALS: ReadonlySet<string> = new Set(["CONFLICT", "INVALID_INPUT", "PAYLOAD_TOO_LARGE", "LIMIT_EXCEEDED"]);

/** A bundled skill as gen embeds it: the version's content and the digest gen computed. */
type Bundled = SkillVersionInput & { readonly digest?: string };

/**
 * Publishes each bundled version; an agent restarted with the same skills changes nothing (the same
 * digest is a no-op). A changed SKILL.md under an unchanged version is refused by the registry
 * (versions are immutable) and logged as an error naming the skill: the agent keeps serving, with the
 * version the registry already holds, until the skill's version is raised.
 */
export async function publishBundled(store: SkillStore, bundled: readonly Bundled[], log: Logger, { retrying = false } = {}): Promise<Publication> {
  let published = 0;
  for (const skill of bundled) {
    const id = `${skill.namespace}/${skill.name}@${skill.version}`;
    try {
      const stored = await store.publish(skill);
      published++;
      if (skill.digest !== undefined && stored.digest !== skill.digest)
        log.warn(`bundled skill ${id}: the registry's digest differs from the one gen embedded; regenerate the agent (npm run gen)`);
    } catch (error) {
      const code = isManifoldError(error) ? error.code : "INTERNAL";
      if (!REFUSALS.has(code)) {
        // The store itself failed (unreachable, say): the next skills would wait as long each.
        if (!retrying) log.error(`bundled skills not published: the skill registry failed (${code}); retrying every ${RETRY_MS / 1000} s`, { skill: id, code });
        return { published, storeFailed: true };
      }
      const why =
        code === "CONFLICT"
          ? "the registry already holds this version with other content (versions are immutable): raise the skill's version in its SKILL.md and regenerate"
          : `the registry refused it (${code})`;
      log.error(`bundled skill ${id} was not published: ${why}`, { skill: id, code });
    }
  }
  return { published, storeFailed: false };
}

export interface BundledPublisherOptions {
  readonly store: SkillStore;
  readonly bundled: readonly Bundled[];
  readonly log: Logger;
  /** @defaultValue systemClock */
  readonly clock?: Clock;
}

/** Publishes at `start()`; while the registry fails, again every RETRY_MS until it answers or `stop()`. */
export function createBundledPublisher({ store, bundled, log, clock = systemClock }: BundledPublisherOptions): { start(): Promise<void>; stop(): void } {
  let timer: ClockTimer | undefined;
  let stopped = false;
  const attempt = async (retrying: boolean): Promise<void> => {
    if (stopped || bundled.length === 0) return;
    const { published, storeFailed } = await publishBundled(store, bundled, log, { retrying });
    if (!storeFailed) {
      if (retrying) log.info(`bundled skills published once the skill registry answered (${published} of ${bundled.length})`);
      return;
    }
    if (!stopped) timer = clock.setTimeout(() => void attempt(true), RETRY_MS);
  };
  return {
    start: () => attempt(false),
    stop() {
      stopped = true;
      clock.clearTimeout(timer);
    },
  };
}
