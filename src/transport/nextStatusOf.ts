import type { ArmStatus, Transport } from "./Transport.js";

/** The next status `transport` publishes, or undefined if `signal` fires first. */
export function nextStatusOf(
  transport: Pick<Transport, "onStatus">,
  signal: AbortSignal,
): Promise<ArmStatus | undefined> {
  return new Promise((resolve) => {
    const done = (status: ArmStatus | undefined): void => {
      off();
      signal.removeEventListener("abort", onAbort);
      resolve(status);
    };
    const onAbort = (): void => done(undefined);
    const off = transport.onStatus((status) => done(status));
    if (signal.aborted) done(undefined);
    else signal.addEventListener("abort", onAbort, { once: true });
  });
}
