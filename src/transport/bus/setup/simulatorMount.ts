import { decodeSimMount, SIM_MOUNT_BLOCK, type SimMount } from "../../../protocol/bus/index.js";
import type { ServoAxis } from "../../../protocol/bus/servoAxes.js";
import type { BusExchange } from "./BusExchange.js";

/** How an axis's servo compares with the simulator's truth. */
export type MountCheck =
  | { readonly axis: string; readonly kind: "matches" }
  | { readonly axis: string; readonly kind: "differs"; readonly detail: string }
  | { readonly axis: string; readonly kind: "not_simulated" }
  /** No answer at all: nothing can be said of this servo. */
  | { readonly axis: string; readonly id: number; readonly kind: "silent" };

/** Reads of one servo's block before it counts as not answering: a host busy starting up can miss a reply's window. */
const ATTEMPTS = 3;

/**
 * Reads armbridge-sim's mount block (simMountBlock.ts) from each axis's
 * servo and compares it with the config's centre and direction. A real
 * servo has no such block: `not_simulated`, and no more servos are asked.
 * A servo that does not answer is `silent`, and the next one is asked.
 */
export async function checkSimulatorMount(
  exchange: BusExchange,
  axes: readonly ServoAxis[],
  signal?: AbortSignal,
): Promise<MountCheck[]> {
  const block = SIM_MOUNT_BLOCK[exchange.protocol.name];
  const out: MountCheck[] = [];
  for (const axis of axes) {
    let mount: SimMount | undefined;
    let answered = false;
    for (let attempt = 0; attempt < ATTEMPTS && mount === undefined; attempt++) {
      const r = await exchange.read(axis.id, block.address, block.size, signal);
      const reply = r.replies.find((x) => x.id === axis.id);
      answered ||= reply !== undefined;
      const data = reply?.data.length === block.size ? reply.data : undefined;
      mount = data ? decodeSimMount(data) : undefined;
      // An answer without the block (Access Error, other bytes) is a real servo: asking again would not change it.
      if (reply && mount === undefined) break;
    }
    if (!answered) {
      out.push({ axis: axis.name, id: axis.id, kind: "silent" });
      continue;
    }
    if (!mount) {
      out.push({ axis: axis.name, kind: "not_simulated" });
      return out;
    }
    const detail = mountDifference(axis, mount);
    out.push(
      detail === undefined ? { axis: axis.name, kind: "matches" } : { axis: axis.name, kind: "differs", detail },
    );
  }
  return out;
}

/** Where the config's mapping and the servo's true mount disagree by more than half a count, in words; undefined when they agree. */
function mountDifference(axis: ServoAxis, mount: SimMount): string | undefined {
  if (axis.kind === "gripper") {
    const open = (m: { zeroCount: number; countsPerUnit: number }): number => m.zeroCount + m.countsPerUnit;
    if (Math.abs(axis.zeroCount - mount.zeroCount) <= 0.5 && Math.abs(open(axis) - open(mount)) <= 0.5)
      return undefined;
    return `closed ${mount.zeroCount} / open ${open(mount)} on the servo, ${axis.zeroCount} / ${open(axis)} in the config`;
  }
  const parts: string[] = [];
  if (Math.abs(axis.zeroCount - mount.zeroCount) > 0.5)
    parts.push(`centre ${mount.zeroCount} on the servo, ${axis.zeroCount} in the config`);
  if (Math.sign(axis.countsPerUnit) !== Math.sign(mount.countsPerUnit))
    parts.push(`mounted with sign ${Math.sign(mount.countsPerUnit)}, the config says ${Math.sign(axis.countsPerUnit)}`);
  else if (Math.abs(axis.countsPerUnit - mount.countsPerUnit) > Math.abs(mount.countsPerUnit) * 1e-3)
    parts.push(
      `${Math.round(Math.abs(mount.countsPerUnit) * 2 * Math.PI)} counts per turn on the servo, ${Math.round(Math.abs(axis.countsPerUnit) * 2 * Math.PI)} in the config`,
    );
  return parts.length > 0 ? parts.join(", ") : undefined;
}
