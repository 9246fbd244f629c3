/**
 * An AbortSignal that aborts when any of `signals` does — like
 * `AbortSignal.any` — but leaves nothing behind on them once disposed.
 *
 * Why not `AbortSignal.any`: on Node 20, a signal composed from a long-lived
 * one (a transport's lifetime) stays referenced from it, more so once a
 * listener was attached; a bridge composing one per query or motion grows
 * without bound over days of service. Call `dispose()` in `finally`.
 */
export function linkSignals(signals: readonly AbortSignal[]): { readonly signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const onAbort = (): void => controller.abort();
  const attached: AbortSignal[] = [];
  for (const s of signals) {
    if (s.aborted) {
      controller.abort();
      break;
    }
    s.addEventListener("abort", onAbort, { once: true });
    attached.push(s);
  }
  return {
    signal: controller.signal,
    dispose: () => {
      for (const s of attached) s.removeEventListener("abort", onAbort);
      attached.length = 0;
    },
  };
}
