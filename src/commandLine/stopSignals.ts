/**
 * The signals that end a command cleanly. SIGHUP too: a closed terminal (or
 * an MCP host that went away) must shut the bridge down as cleanly as Ctrl-C,
 * where Node's default would end the process without closing the ledger.
 */
export const STOP_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
export type StopSignal = (typeof STOP_SIGNALS)[number];

/**
 * Calls `onSignal` on each stop signal until the returned function is
 * called. `once`: each signal's listener goes after its first delivery, so a
 * second Ctrl-C meets Node's default and ends a process stuck in teardown;
 * `every`: each delivery is heard (a command that says so once and keeps
 * closing).
 */
export function onStopSignals(onSignal: (signal: StopSignal) => void, how: "once" | "every"): () => void {
  const listeners = STOP_SIGNALS.map((signal) => {
    const listener = (): void => onSignal(signal);
    if (how === "once") process.once(signal, listener);
    else process.on(signal, listener);
    return [signal, listener] as const;
  });
  return () => {
    for (const [signal, listener] of listeners) process.off(signal, listener);
  };
}
