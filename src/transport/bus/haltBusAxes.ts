import { ArmbridgeError } from "../../errors.js";
import type { LinkLifecycle } from "../link/LinkLifecycle.js";
import type { ArmStatus, HaltResult } from "../Transport.js";
import type { BusChannel } from "./BusChannel.js";
import type { BusMotions } from "./BusMotions.js";
import type { BusServos } from "./BusServos.js";
import { decodeRegister, encodeRegister, type BusProtocol } from "../../protocol/bus/index.js";
import type { ServoState } from "./ServoState.js";

export interface BusHaltContext {
  readonly kind: string;
  readonly protocol: BusProtocol;
  readonly channel: BusChannel;
  readonly servos: BusServos;
  readonly motions: BusMotions;
  readonly link: LinkLifecycle;
  readonly latest: () => ArmStatus | undefined;
  readonly onStatus: (listener: (status: ArmStatus) => void) => () => void;
}

/**
 * Stop on a bus: each armed servo is held where it is now — a fresh read of
 * its present position, then one goal write at those positions — and the
 * halt is confirmed by two statuses that show the axes still. With the link
 * down nothing can be written: `halted: false` with ARMB_ERR_LINK_DOWN, never
 * a success nobody saw.
 */
export async function haltBusAxes(
  c: BusHaltContext,
  options: { axes?: readonly string[]; signal: AbortSignal },
): Promise<HaltResult> {
  const names = options.axes ?? [...c.servos.byName.keys()];
  const link = c.link.snapshot();
  if (link.state !== "connected") {
    return {
      halted: false,
      status: c.latest(),
      error: new ArmbridgeError("ARMB_ERR_LINK_DOWN", {
        transport: c.kind,
        state: link.state,
        detail: link.detail ?? "no answer from the servos",
      }),
    };
  }
  const list = names.map((n) => c.servos.byName.get(n)).filter((s): s is ServoState => s !== undefined && s.armed);
  c.motions.markHalted(names);
  const t = c.protocol.table;
  const ids = list.map((s) => s.axis.id);
  if (ids.length > 0) {
    const { byId: replies } = await c.channel.syncRead(ids, "presentPosition");
    const entries = list.map((s) => {
      const r = replies.get(s.axis.id);
      const present = r
        ? (decodeRegister(t.presentPosition, r.data) ?? c.servos.get(s, t.presentPosition))
        : c.servos.get(s, t.presentPosition);
      return { id: s.axis.id, data: encodeRegister(t.goalPosition, present) };
    });
    if (!(await c.channel.syncWrite("goalPosition", entries))) {
      return {
        halted: false,
        status: c.latest(),
        error: new ArmbridgeError("ARMB_ERR_LINK_DOWN", {
          transport: c.kind,
          state: c.link.state,
          detail: "the link closed before the hold was written",
        }),
      };
    }
  }
  const still = await new Promise<ArmStatus | undefined>((resolve) => {
    const check = (s: ArmStatus): boolean => names.every((n) => s.axes[n] && !s.axes[n].moving);
    const done = (s: ArmStatus | undefined): void => {
      unsubscribe();
      options.signal.removeEventListener("abort", onAbort);
      resolve(s);
    };
    const onAbort = (): void => done(undefined);
    let seen = 0;
    const unsubscribe = c.onStatus((s) => {
      if (++seen >= 2 && check(s)) done(s);
    });
    if (options.signal.aborted) done(undefined);
    else options.signal.addEventListener("abort", onAbort, { once: true });
  });
  return { halted: still !== undefined, status: still ?? c.latest() };
}
