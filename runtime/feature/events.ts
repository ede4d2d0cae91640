/**
 * Events between agent features that must not import each other: chat announces a finished turn,
 * memory listens. The event names and payloads are declared by module augmentation of
 * `FeatureEventMap` in the emitting feature's descriptor, so this seam names no feature. A listener
 * is called after the emitter's work is done; what it throws is logged, never the emitter's problem.
 */
import type { Logger } from "../telemetry/index.js";

// biome-ignore lint/suspicious/noEmptyInterface: filled by module augmentation in each emitting feature.
export interface FeatureEventMap {}

export type FeatureEventName = keyof FeatureEventMap & string;

export interface FeatureEvents {
  /** Adds a listener; returns its removal. */
  on<K extends FeatureEventName>(name: K, listener: (payload: FeatureEventMap[K]) => void | Promise<void>): () => void;
  /** Tells every listener, each a microtask later; never throws, never waits. */
  emit<K extends FeatureEventName>(name: K, payload: FeatureEventMap[K]): void;
  /** Whether anyone listens (an emitter skips building a costly payload otherwise). */
  has(name: FeatureEventName): boolean;
}

export function createFeatureEvents(log: Logger): FeatureEvents {
  const listeners = new Map<string, Set<(payload: never) => void | Promise<void>>>();
  const failed = (name: string) => (error: unknown) => log.warn(`a listener of ${name} failed`, { error });
  return {
    on(name, listener) {
      let set = listeners.get(name);
      if (set === undefined) listeners.set(name, (set = new Set()));
      const added = listener as (payload: never) => void | Promise<void>;
      set.add(added);
      return () => set.delete(added);
    },
    emit(name, payload) {
      for (const listener of listeners.get(name) ?? []) {
        queueMicrotask(() => {
          try {
            Promise.resolve(listener(payload as never)).catch(failed(name));
          } catch (error) {
            failed(name)(error);
          }
        });
      }
    },
    has: (name) => (listeners.get(name)?.size ?? 0) > 0,
  };
}
