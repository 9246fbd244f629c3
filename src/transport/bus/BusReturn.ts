import type { Logger } from "pino";
import { ArmbridgeError } from "../../errors.js";
import type { ByteLink } from "../link/ByteLink.js";
import type { LinkReturn } from "../link/LinkLifecycle.js";
import type { BusChannel } from "./BusChannel.js";
import type { BusServos } from "./BusServos.js";
import type { BusStatusLoop } from "./BusStatusLoop.js";
import { decodeRegister, type BusProtocol } from "../../protocol/bus/index.js";
import type { ServoArming } from "./ServoArming.js";
import type { ServoState } from "./ServoState.js";

export interface BusReturnContext {
  readonly link: ByteLink;
  readonly protocol: BusProtocol;
  readonly channel: BusChannel;
  readonly servos: BusServos;
  readonly loop: BusStatusLoop;
  readonly arming: ServoArming;
  readonly log: Logger;
  readonly now: () => number;
  readonly readAttempts: number;
  /** Model number of each servo id, as read when the bridge opened the bus: who this arm is. */
  readonly models: ReadonlyMap<number, number>;
  /** A servo we had armed came back with torque off: count the power loss, cut short the motions on it. */
  readonly notePowerLoss: (s: ServoState, why: string) => void;
}

/**
 * Pings every configured id and reads each servo's model number. Ids that do
 * not answer are named in the error (the servos may still be booting, or the
 * bus is unpowered): tried again later.
 */
export async function readModelNumbers(
  c: Pick<BusReturnContext, "protocol" | "channel" | "servos" | "readAttempts" | "link">,
): Promise<Map<number, number>> {
  const { protocol, channel, servos } = c;
  const silent: number[] = [];
  for (const id of servos.ids) {
    let answered = false;
    // A lost or damaged packet is tried again, as any read is: a ping moves nothing.
    for (let attempt = 0; attempt < c.readAttempts && !answered; attempt++)
      answered = (await channel.ping(id)).byId.has(id);
    if (!answered) silent.push(id);
  }
  if (silent.length > 0)
    throw new ArmbridgeError("ARMB_ERR_DEVICE_TIMEOUT", {
      op: `PING of servo id(s) ${silent.join(", ")} on ${c.link.url}`,
      ms: channel.options.replyTimeoutMs,
    });
  const reg = protocol.table.modelNumber;
  const models = new Map<number, number>();
  for (let attempt = 0; attempt < c.readAttempts && models.size < servos.ids.length; attempt++) {
    const missing = servos.ids.filter((id) => !models.has(id));
    const { byId } = await channel.syncRead(missing, "modelNumber");
    for (const [id, r] of byId) models.set(id, decodeRegister(reg, r.data) ?? -1);
  }
  const unread = servos.ids.filter((id) => !models.has(id));
  if (unread.length > 0)
    throw new ArmbridgeError("ARMB_ERR_DEVICE_TIMEOUT", {
      op: `model number read of servo id(s) ${unread.join(", ")}`,
      ms: channel.options.replyTimeoutMs * c.readAttempts,
    });
  return models;
}

/**
 * One reconnection attempt on a servo bus (LinkLifecycle):
 * 1. reopen the port (a USB adapter that re-enumerated on the same path is a
 *    new port to the OS; a TCP bridge a new connection);
 * 2. ping every configured id and read its model number — a servo with
 *    another model than when the bridge started is another arm: refused
 *    (ARMB_ERR_DEVICE_REPLACED), nothing written to it;
 * 3. read every status block (present positions, torque, health);
 * 4. a servo we had armed that now reads torque off lost power — a new
 *    incarnation: motions on it are cut short (settled by observation), and
 *    it is armed again without moving: goal := present position, then torque
 *    on (ServoArming.arm);
 * 5. the status cycle resumes.
 * Nothing that was in flight is written again.
 */
export async function reconnectBus(c: BusReturnContext, signal: AbortSignal): Promise<LinkReturn> {
  await c.loop.stop();
  signal.throwIfAborted();
  await c.link.open(signal);
  let models: Map<number, number>;
  try {
    models = await readModelNumbers(c);
  } catch (error) {
    // Close, so the next attempt opens the port afresh: a vanished adapter can
    // leave an open descriptor that will never carry bytes again.
    await c.link.close();
    throw error;
  }
  const other = c.servos.list.filter((s) => models.get(s.axis.id) !== c.models.get(s.axis.id));
  if (other.length > 0) {
    const named = (model: number | undefined): string => {
      const name = Object.entries(c.protocol.table.modelNumbers).find(([, n]) => n === model)?.[0];
      return `${model ?? "?"}${name ? ` (${name})` : ""}`;
    };
    throw new ArmbridgeError("ARMB_ERR_DEVICE_REPLACED", {
      link: c.link.url,
      detail: other
        .map(
          (s) =>
            `servo ${s.axis.id} (${s.axis.name}) reports model ${named(models.get(s.axis.id))}, not ${named(c.models.get(s.axis.id))} as when the bridge started`,
        )
        .join("; "),
    });
  }
  signal.throwIfAborted();
  const since = c.now();
  const unreadIds = (): number[] =>
    c.servos.list.filter((s) => s.blockStamps.some((at) => at < since)).map((s) => s.axis.id);
  for (let attempt = 0; attempt < c.readAttempts && (attempt === 0 || unreadIds().length > 0); attempt++)
    await c.loop.readAll();
  const unread = unreadIds();
  if (unread.length > 0)
    throw new ArmbridgeError("ARMB_ERR_DEVICE_TIMEOUT", {
      op: `status read of servo id(s) ${unread.join(", ")}`,
      ms: c.channel.options.replyTimeoutMs,
    });
  const t = c.protocol.table;
  const powerLost: ServoState[] = [];
  for (const s of c.servos.list) {
    if (c.servos.get(s, t.hardwareError) !== 0) c.arming.noteTrip(s);
    if (s.armed && !s.tripped && c.servos.get(s, t.torqueEnable) === 0) {
      powerLost.push(s);
      c.notePowerLoss(
        s,
        `servo ${s.axis.id} (${s.axis.name}) came back with torque off: it lost power while the link was down`,
      );
    }
  }
  const armedAgain: string[] = [];
  for (const s of c.servos.list) {
    if (s.armed || s.tripped) continue;
    if (await c.arming.arm(s)) armedAgain.push(`${s.axis.name} at ${c.servos.position(s).toFixed(4)}`);
  }
  c.loop.start();
  if (powerLost.length === 0)
    return {
      incarnation: "same",
      detail: `every servo answered with torque still on (ids ${c.servos.ids.join(", ")})`,
    };
  return {
    incarnation: "new",
    detail: `servo(s) ${powerLost.map((s) => `${s.axis.id} (${s.axis.name})`).join(", ")} came back after a power loss (torque off, goal registers at power-on values); armed again holding the present position: ${armedAgain.join(", ") || "none yet"}`,
  };
}
