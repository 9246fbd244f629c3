/**
 * Per-resource locks for motion calls. A call names all its keys up front
 * (`joint:elbow`, `gripper`, `controller:arm`) and gets all of them at once:
 *
 * - Atomic: a call is granted when it is at the head of the queue of *every*
 *   key it names; it never holds some keys while waiting for others, so there
 *   is no deadlock whatever order callers list keys in.
 * - FIFO per key: a call joins the tail of each key's queue when it arrives,
 *   so a later call never overtakes an earlier one on a shared key (no
 *   starvation), while calls with disjoint keys run concurrently.
 * - Abortable: a queued call whose signal fires leaves every queue and rejects
 *   with `LockWaitAborted`; nothing was granted, so nothing was sent.
 */
export class LockWaitAborted extends Error {
  override readonly name = "LockWaitAborted";
  readonly canceled = true;
  constructor() {
    super("lock wait aborted before the resources were granted");
  }
}

export interface LockLease {
  readonly keys: readonly string[];
  /** Releases every key; idempotent. */
  release(): void;
}

interface Waiter {
  readonly keys: readonly string[];
  readonly grant: () => void;
}

export class JointLockTable {
  /** Per key, the FIFO of waiters; the head holds the key once granted. */
  readonly #queues = new Map<string, Waiter[]>();
  readonly #granted = new Set<Waiter>();

  /** Keys in canonical order with duplicates removed. */
  static canonical(keys: Iterable<string>): string[] {
    return [...new Set(keys)].sort();
  }

  acquire(keys: Iterable<string>, signal?: AbortSignal): Promise<LockLease> {
    const canonical = JointLockTable.canonical(keys);
    if (signal?.aborted) return Promise.reject(new LockWaitAborted());
    return new Promise<LockLease>((resolve, reject) => {
      let released = false;
      const lease: LockLease = {
        keys: canonical,
        release: () => {
          if (released) return;
          released = true;
          this.#leave(waiter);
        },
      };
      const onAbort = (): void => {
        if (this.#granted.has(waiter)) return;
        this.#leave(waiter);
        reject(new LockWaitAborted());
      };
      const waiter: Waiter = {
        keys: canonical,
        grant: () => {
          signal?.removeEventListener("abort", onAbort);
          resolve(lease);
        },
      };
      for (const key of canonical) {
        let queue = this.#queues.get(key);
        if (!queue) this.#queues.set(key, (queue = []));
        queue.push(waiter);
      }
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#grantReady([waiter]);
    });
  }

  /** Keys currently held, for state views and tests. */
  heldKeys(): string[] {
    const held: string[] = [];
    for (const w of this.#granted) held.push(...w.keys);
    return held.sort();
  }

  /** Number of calls waiting (not yet granted). */
  waitingCount(): number {
    const waiting = new Set<Waiter>();
    for (const queue of this.#queues.values()) for (const w of queue) if (!this.#granted.has(w)) waiting.add(w);
    return waiting.size;
  }

  #isHeadOfAll(waiter: Waiter): boolean {
    return waiter.keys.every((k) => this.#queues.get(k)?.[0] === waiter);
  }

  #grantReady(candidates: Iterable<Waiter>): void {
    for (const w of candidates) {
      if (this.#granted.has(w) || !this.#isHeadOfAll(w)) continue;
      this.#granted.add(w);
      w.grant();
    }
  }

  #leave(waiter: Waiter): void {
    this.#granted.delete(waiter);
    const nextHeads: Waiter[] = [];
    for (const key of waiter.keys) {
      const queue = this.#queues.get(key);
      if (!queue) continue;
      const i = queue.indexOf(waiter);
      if (i >= 0) queue.splice(i, 1);
      if (queue.length === 0) this.#queues.delete(key);
      else if (queue[0]) nextHeads.push(queue[0]);
    }
    this.#grantReady(nextHeads);
  }
}
