/**
 * A typed client's hold on a shared, reference-counted value (an MCP session, a remote A2A agent):
 * taken on the client's first call, given back by `closeLeasedClient(client)`, or when the client is
 * garbage-collected (a handler's `clients()` made per request holds nothing once it is gone).
 */
interface Releasable {
  release(): Promise<void>;
}

const closers = new WeakMap<object, () => Promise<void>>();
// The holder lives outside the client, so the finalizer can release its lease once the client is unreachable.
const collected = new FinalizationRegistry<{ lease?: Releasable }>((holder) => void holder.lease?.release());

export interface ClientLease<L extends Releasable> {
  /** The lease, acquired on first use; throws `closedError()` once the client is closed. */
  lease(): L;
  /** Ties the lease to `client`: released when it is closed or collected. */
  bind(client: object): void;
}

export function createClientLease<L extends Releasable>(acquire: () => L, closedError: () => Error): ClientLease<L> {
  const holder: { lease?: L; closed?: boolean } = {};
  return {
    lease() {
      if (holder.closed === true) throw closedError();
      holder.lease ??= acquire();
      return holder.lease;
    },
    bind(client) {
      collected.register(client, holder);
      closers.set(client, async () => {
        holder.closed = true;
        collected.unregister(client);
        await holder.lease?.release();
      });
    },
  };
}

/** Gives back a client's lease; idempotent, and a no-op for an object that holds none. */
export async function closeLeasedClient(client: object): Promise<void> {
  await closers.get(client)?.();
}
