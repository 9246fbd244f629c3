import type { Logger } from "pino";
import type { ActionRecord, ArmStatus, AxisState } from "../Transport.js";
import type { MessageOf, WireActionRecord } from "../../protocol/serial/index.js";
import { deviceText } from "../../validation/deviceText.js";

/** A wire action record in the Transport's vocabulary (the two share their state names). */
export function toActionRecord(wire: WireActionRecord, detail?: string): ActionRecord {
  return {
    actionId: wire.actionId,
    state: wire.state,
    moved: wire.moved,
    // The device's own words: quoted and bounded wherever they are shown.
    ...(detail === undefined || detail === "" ? {} : { detail: deviceText("the arm", detail) }),
  };
}

/**
 * A STATUS frame as an ArmStatus: axis indices named by the HELLO's axis
 * list, stamped with the local receive time (the device clock is not ours).
 * Undefined when the frame's axis count does not match the HELLO.
 */
export function toArmStatus(
  frame: MessageOf<"STATUS">,
  axisNames: readonly string[],
  stampMs: number,
): ArmStatus | undefined {
  if (frame.axes.length !== axisNames.length) return undefined;
  const axes: Record<string, AxisState> = {};
  frame.axes.forEach((sample, i) => {
    axes[axisNames[i] as string] = { position: sample.position, velocity: sample.velocity, moving: sample.moving };
  });
  const faults = [...frame.faults];
  frame.axes.forEach((sample, i) => {
    if (sample.stalled) faults.push(`axis ${axisNames[i]} stalled`);
  });
  return { stampMs, axes, faults, actions: frame.actions.map((r) => toActionRecord(r)) };
}

/** The newest arm status and its subscribers. */
export class StatusCache {
  private newest: ArmStatus | undefined;
  private readonly listeners = new Set<(status: ArmStatus) => void>();

  constructor(private readonly logger: Logger) {}

  latest(): ArmStatus | undefined {
    return this.newest;
  }

  update(status: ArmStatus): void {
    this.newest = status;
    for (const listener of [...this.listeners]) {
      try {
        listener(status);
      } catch (error) {
        // A subscriber's bug must not stop the status stream for everyone else.
        this.logger.error({ err: error }, "status listener threw");
      }
    }
  }

  subscribe(listener: (status: ArmStatus) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The next status to arrive, or undefined if `signal` fires first. */
  async next(signal: AbortSignal): Promise<ArmStatus | undefined> {
    if (signal.aborted) return undefined;
    return new Promise((resolve) => {
      const done = (status: ArmStatus | undefined): void => {
        unsubscribe();
        signal.removeEventListener("abort", onAbort);
        resolve(status);
      };
      const onAbort = (): void => done(undefined);
      const unsubscribe = this.subscribe((status) => done(status));
      signal.addEventListener("abort", onAbort, { once: true });
    });
  }
}
