import { ArmbridgeError } from "../../../errors.js";
import { encodeRegister, type Register } from "../../../protocol/bus/index.js";
import type { BusExchange } from "./BusExchange.js";
import { scanBus, type ScannedServo } from "./scanBus.js";

/**
 * The one servo on the bus, for the steps that must not reach a second one
 * (setting an id or a baud, the first thing done to a new servo). Every
 * given baud is scanned; anything but exactly one servo, answering cleanly,
 * is refused before a byte is written.
 */
export async function findLoneServo(
  exchange: BusExchange,
  bauds: readonly number[],
  action: string,
  signal?: AbortSignal,
): Promise<ScannedServo> {
  const scan = await scanBus(exchange, { bauds, method: "broadcast", ...(signal ? { signal } : {}) });
  const found = scan.servos;
  const link = exchange.link.url;
  if (found.length === 0 && scan.hints.length === 0) {
    throw new ArmbridgeError("ARMB_ERR_BUS_NO_SERVO", {
      protocol: exchange.protocol.name,
      link,
      bauds: bauds.join(", "),
      detail: "",
    });
  }
  const shared = found.find((s) => s.shared_id !== undefined);
  if (found.length > 1 || shared || scan.hints.length > 0) {
    const what =
      found.length > 1
        ? `${found.length} servos answered (${found.map((s) => `id ${s.id} at ${s.baud} baud`).join(", ")})`
        : shared
          ? `id ${shared.id} answers like two servos (${shared.shared_id})`
          : `the answers were garbled (${scan.hints.join("; ")})`;
    throw new ArmbridgeError("ARMB_ERR_BUS_NOT_ALONE", { action, link, found: what });
  }
  // Exactly one, cleanly.
  return found[0] as ScannedServo;
}

/** The record of a servo after a set-up step. */
export interface SetUpServo {
  readonly id: number;
  readonly baud: number;
  readonly model: string;
  readonly firmware: string | undefined;
  readonly previous: { readonly id: number; readonly baud: number };
}

/** Gives the lone servo `servo` the id `newId` (EEPROM), and checks that it answers there and no longer at its old id. */
export async function setServoId(
  exchange: BusExchange,
  servo: ScannedServo,
  newId: number,
  signal?: AbortSignal,
): Promise<SetUpServo> {
  const setup = exchange.protocol.table.setup;
  const link = exchange.link.url;
  if (!Number.isInteger(newId) || newId < setup.ids.min || newId > setup.ids.max) {
    throw new ArmbridgeError("ARMB_ERR_BUS_WRITE", {
      id: servo.id,
      link,
      what: `id ${newId}`,
      reason: `a ${exchange.protocol.name} id is ${setup.ids.min}–${setup.ids.max}`,
    });
  }
  await exchange.setBaud(servo.baud, signal);
  if (newId !== servo.id) {
    await writeEeprom(exchange, servo.id, setup.id, newId, `id ${newId}`, signal);
    await relock(exchange, newId, signal);
    const there = await exchange.ping(newId, signal);
    if (!there.replies.some((r) => r.id === newId))
      throw new ArmbridgeError("ARMB_ERR_BUS_WRITE", {
        id: servo.id,
        link,
        what: `id ${newId}`,
        reason: `nothing answers at id ${newId} afterwards`,
      });
    const old = await exchange.ping(servo.id, signal);
    if (old.replies.some((r) => r.id === servo.id))
      throw new ArmbridgeError("ARMB_ERR_BUS_WRITE", {
        id: servo.id,
        link,
        what: `id ${newId}`,
        reason: `it still answers at id ${servo.id}`,
      });
  }
  return {
    id: newId,
    baud: servo.baud,
    model: servo.model,
    firmware: servo.firmware,
    previous: { id: servo.id, baud: servo.baud },
  };
}

/** Sets the lone servo's Baud_Rate to `newBaud`, moves the link to that rate, and checks that it answers there. */
export async function setServoBaud(
  exchange: BusExchange,
  servo: ScannedServo,
  newBaud: number,
  signal?: AbortSignal,
): Promise<SetUpServo> {
  const setup = exchange.protocol.table.setup;
  const link = exchange.link.url;
  const value = setup.baudValues[newBaud];
  if (value === undefined) {
    throw new ArmbridgeError("ARMB_ERR_BUS_WRITE", {
      id: servo.id,
      link,
      what: `${newBaud} baud`,
      reason: `a ${exchange.protocol.name} servo takes ${Object.keys(setup.baudValues).join(", ")}`,
    });
  }
  if (!exchange.canSetBaud) {
    // Refused before writing: the servo would move to the new rate and this link could not follow it.
    await exchange.setBaud(newBaud, signal);
  }
  await exchange.setBaud(servo.baud, signal);
  if (newBaud !== servo.baud) {
    await writeEeprom(exchange, servo.id, setup.baudRate, value, `${newBaud} baud`, signal);
    await exchange.setBaud(newBaud, signal);
    await relock(exchange, servo.id, signal);
    const there = await exchange.ping(servo.id, signal);
    if (!there.replies.some((r) => r.id === servo.id))
      throw new ArmbridgeError("ARMB_ERR_BUS_WRITE", {
        id: servo.id,
        link,
        what: `${newBaud} baud`,
        reason: `it does not answer at ${newBaud} baud afterwards`,
      });
  }
  return {
    id: servo.id,
    baud: newBaud,
    model: servo.model,
    firmware: servo.firmware,
    previous: { id: servo.id, baud: servo.baud },
  };
}

/**
 * One EEPROM write as the vendors do it: torque off first (Dynamixel X
 * refuses EEPROM under torque; LeRobot's setup_motor disables torque on
 * both families), Feetech's Lock opened so the value is kept.
 */
async function writeEeprom(
  exchange: BusExchange,
  id: number,
  reg: Register,
  value: number,
  what: string,
  signal?: AbortSignal,
): Promise<void> {
  const table = exchange.protocol.table;
  const lock = table.setup.eepromLock;
  await writeChecked(exchange, id, table.torqueEnable, 0, "torque off", signal);
  if (lock) await writeChecked(exchange, id, lock.register, lock.unlocked, "EEPROM unlock", signal);
  // The servo may answer from its new id or at its new rate, or not in a way we can hear: the check afterwards decides.
  const r = await exchange.write(id, reg.address, encodeRegister(reg, value), signal);
  const err = r.replies.find((x) => x.id === id)?.error ?? 0;
  const problems = exchange.protocol.statusErrorNames(err);
  if (problems.length > 0)
    throw new ArmbridgeError("ARMB_ERR_BUS_WRITE", { id, link: exchange.link.url, what, reason: problems.join(", ") });
}

async function relock(exchange: BusExchange, id: number, signal?: AbortSignal): Promise<void> {
  const lock = exchange.protocol.table.setup.eepromLock;
  if (lock) await writeChecked(exchange, id, lock.register, lock.locked, "EEPROM lock", signal);
}

async function writeChecked(
  exchange: BusExchange,
  id: number,
  reg: Register,
  value: number,
  what: string,
  signal?: AbortSignal,
): Promise<void> {
  const r = await exchange.write(id, reg.address, encodeRegister(reg, value), signal);
  const reply = r.replies.find((x) => x.id === id);
  if (!reply)
    throw new ArmbridgeError("ARMB_ERR_BUS_WRITE", { id, link: exchange.link.url, what, reason: "no answer" });
  const problems = exchange.protocol.statusErrorNames(reply.error);
  if (problems.length > 0)
    throw new ArmbridgeError("ARMB_ERR_BUS_WRITE", { id, link: exchange.link.url, what, reason: problems.join(", ") });
}
