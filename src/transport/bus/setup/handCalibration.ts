import { ArmbridgeError } from "../../../errors.js";
import { decodeRegister, encodeRegister, type Register } from "../../../protocol/bus/index.js";
import type { BusExchange } from "./BusExchange.js";

/**
 * The servo operations a calibration needs, on a bus with no transport
 * running: torque off (the operator moves the arm by hand), a quick read of
 * every position, and a short, slow jog that never jumps.
 */

/**
 * Reads each id's present position with a sync read, asking again (up to
 * three reads, as readRegister) those whose answer did not come in time; a
 * servo that never answered is missing from the map.
 */
export async function readPositions(
  exchange: BusExchange,
  ids: readonly number[],
  signal?: AbortSignal,
): Promise<Map<number, number>> {
  const { protocol } = exchange;
  const reg = protocol.table.presentPosition;
  const out = new Map<number, number>();
  for (let attempt = 0; attempt < 3 && out.size < ids.length; attempt++) {
    const asked = ids.filter((id) => !out.has(id));
    const packet = protocol.syncRead(reg.address, reg.size, asked);
    const r = await exchange.transact(packet, {
      expect: { ids: asked, length: reg.size },
      timeoutMs: exchange.replyTimeoutMs(packet.length, asked.length * (reg.size + protocol.statusOverhead)),
      signal,
    });
    for (const reply of r.replies) {
      const v = decodeRegister(reg, reply.data, 0);
      if (v !== undefined) out.set(reply.id, v);
    }
  }
  return out;
}

export async function writeRegister(
  exchange: BusExchange,
  id: number,
  reg: Register,
  value: number,
  what: string,
  signal?: AbortSignal,
): Promise<void> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const r = await exchange.write(id, reg.address, encodeRegister(reg, value), signal);
    const reply = r.replies.find((x) => x.id === id);
    if (!reply) continue;
    const problems = exchange.protocol.statusErrorNames(reply.error);
    if (problems.length > 0)
      throw new ArmbridgeError("ARMB_ERR_BUS_WRITE", {
        id,
        link: exchange.link.url,
        what,
        reason: problems.join(", "),
      });
    return;
  }
  throw new ArmbridgeError("ARMB_ERR_BUS_WRITE", { id, link: exchange.link.url, what, reason: "no answer (3 tries)" });
}

export async function readRegister(
  exchange: BusExchange,
  id: number,
  reg: Register,
  signal?: AbortSignal,
): Promise<number | undefined> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const r = await exchange.read(id, reg.address, reg.size, signal);
    const data = r.replies.find((x) => x.id === id && x.data.length === reg.size)?.data;
    if (data) return decodeRegister(reg, data, 0);
  }
  return undefined;
}

export function torqueOff(exchange: BusExchange, id: number, signal?: AbortSignal): Promise<void> {
  return writeRegister(exchange, id, exchange.protocol.table.torqueEnable, 0, "torque off", signal);
}

export interface JogResult {
  readonly from: number;
  readonly reached: number;
}

/**
 * Turns one servo by `deltaCounts` at `countsPerSecond` and brings it back,
 * torque off at the end, calling `atTarget` while it holds the far end (the
 * operator's look). Never a jump: the goal register is set to the present
 * position before torque goes on, as the transport arms a servo; the
 * profile registers cap speed and acceleration.
 */
export async function jogAndReturn(
  exchange: BusExchange,
  id: number,
  deltaCounts: number,
  countsPerSecond: number,
  atTarget: (jog: JogResult) => Promise<void>,
  signal?: AbortSignal,
): Promise<JogResult> {
  const t = exchange.protocol.table;
  const from = await readRegister(exchange, id, t.presentPosition, signal);
  if (from === undefined)
    throw new ArmbridgeError("ARMB_ERR_BUS_WRITE", {
      id,
      link: exchange.link.url,
      what: "a jog",
      reason: "its position could not be read",
    });
  const velocity = Math.max(1, Math.round(countsPerSecond / t.profileVelocityUnit));
  const acceleration = Math.max(1, Math.round((countsPerSecond * 4) / t.profileAccelerationUnit));
  const move = async (goal: number): Promise<number> => {
    const block = t.motionBlock;
    const data = t.encodeMotion(
      goal,
      Math.min(velocity, t.maxProfileVelocityUnits),
      Math.min(acceleration, t.maxProfileAccelerationUnits),
    );
    const r = await exchange.write(id, block.address, data, signal);
    if (!r.replies.some((x) => x.id === id))
      throw new ArmbridgeError("ARMB_ERR_BUS_WRITE", {
        id,
        link: exchange.link.url,
        what: "a jog goal",
        reason: "no answer",
      });
    return waitUntilStill(exchange, id, goal, (Math.abs(goal - from) / countsPerSecond) * 1000 + 3000, signal);
  };
  await writeRegister(exchange, id, t.goalPosition, from, "the jog's starting goal", signal);
  await writeRegister(exchange, id, t.torqueEnable, 1, "torque on", signal);
  try {
    const reached = await move(from + deltaCounts);
    await atTarget({ from, reached });
    await move(from);
    return { from, reached };
  } finally {
    await torqueOff(exchange, id).catch(() => undefined);
  }
}

/** Polls until the servo is within 3 counts of `goal` and not moving, or `withinMs` passed; returns where it is. */
async function waitUntilStill(
  exchange: BusExchange,
  id: number,
  goal: number,
  withinMs: number,
  signal?: AbortSignal,
): Promise<number> {
  const t = exchange.protocol.table;
  const deadline = performance.now() + withinMs;
  let last: number | undefined;
  while (performance.now() < deadline) {
    signal?.throwIfAborted();
    last = (await readRegister(exchange, id, t.presentPosition, signal)) ?? last;
    const moving = await readRegister(exchange, id, t.moving, signal);
    if (last !== undefined && Math.abs(last - goal) <= 3 && moving === 0) return last;
    await new Promise((r) => setTimeout(r, 20));
  }
  if (last === undefined)
    throw new ArmbridgeError("ARMB_ERR_BUS_WRITE", {
      id,
      link: exchange.link.url,
      what: "a jog",
      reason: "its position could not be read while it moved",
    });
  return last;
}
