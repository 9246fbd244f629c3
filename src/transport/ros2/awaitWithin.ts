/** How a bounded wait on a foreign promise ended. */
export type Within<T> =
  | { readonly kind: "value"; readonly value: T }
  | { readonly kind: "error"; readonly error: unknown }
  | { readonly kind: "aborted" };

/**
 * Waits for `promise` until `signal` fires. None of rclnodejs's promises
 * (sendGoal, getResult, cancelGoal, waitForServer) has a timeout, and one
 * whose server died never settles, so every wait on them goes through here.
 * A rejection that arrives after we stopped waiting is absorbed: it is still
 * reported to whoever else awaits the same promise, and never becomes an
 * unhandled rejection. The abort listener is removed in `finally`, so an
 * abandoned promise holds nothing of ours.
 */
export async function awaitWithin<T>(promise: Promise<T>, signal: AbortSignal): Promise<Within<T>> {
  const settled: Promise<Within<T>> = promise.then(
    (value) => ({ kind: "value", value }),
    (error: unknown) => ({ kind: "error", error }),
  );
  if (signal.aborted) return { kind: "aborted" };
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<Within<T>>((resolve) => {
    onAbort = () => resolve({ kind: "aborted" });
    signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    return await Promise.race([settled, aborted]);
  } finally {
    if (onAbort) signal.removeEventListener("abort", onAbort);
  }
}

/** A promise that resolves when `signal` fires (used to wait on events with a deadline). */
export function untilAborted(signal: AbortSignal): { promise: Promise<void>; dispose: () => void } {
  let onAbort: (() => void) | undefined;
  const promise = new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    onAbort = () => resolve();
    signal.addEventListener("abort", onAbort, { once: true });
  });
  return { promise, dispose: () => onAbort && signal.removeEventListener("abort", onAbort) };
}
