import { decodeRegister, type BusProtocol, type Register, type StatusReply } from "../../../protocol/bus/index.js";
import type { BusExchange } from "./BusExchange.js";

/** What one id on the bus says it is. */
export interface ServoIdentity {
  readonly id: number;
  readonly modelNumber: number | undefined;
  /** The model's name where armbridge knows the number. */
  readonly model: string | undefined;
  readonly firmware: string | undefined;
  /** Present position read twice; two servos on one id cannot both come through. */
  readonly position: number | undefined;
  /** Why this id looks like more than one servo (garbled or doubled answers), if it does. */
  readonly sharedIdEvidence: string | undefined;
}

export function modelName(protocol: BusProtocol, modelNumber: number | undefined): string | undefined {
  if (modelNumber === undefined) return undefined;
  return Object.entries(protocol.table.modelNumbers).find(([, n]) => n === modelNumber)?.[0];
}

/** The model number a config names, or undefined for a model armbridge does not know. */
export function modelNumberOf(protocol: BusProtocol, model: string): number | undefined {
  return protocol.table.modelNumbers[model.toLowerCase()];
}

/**
 * Asks one id for its model, firmware and position. Servos sharing an id
 * answer together: their packets collide into bytes that fail the check, or
 * arrive twice. A ping alone can come through a collision unharmed (two
 * servos of one model send the same bytes), so the present position — which
 * differs between two horns — is read as well.
 */
export async function identifyServo(
  exchange: BusExchange,
  id: number,
  signal?: AbortSignal,
): Promise<ServoIdentity | undefined> {
  const { protocol } = exchange;
  const table = protocol.table;
  const setup = table.setup;
  const evidence: string[] = [];
  const note = (what: string, r: { replies: readonly unknown[]; garbledBytes: number }): void => {
    if (r.garbledBytes > 0) evidence.push(`${r.garbledBytes} garbled bytes in the answer to ${what}`);
    if (r.replies.length > 1) evidence.push(`${r.replies.length} answers to one ${what}`);
  };
  // Three tries, as a register read gets (readRegister): a ping answered past its time is no proof of absence.
  let pong: StatusReply | undefined;
  for (let attempt = 0; attempt < 3 && !pong && evidence.length === 0; attempt++) {
    const ping = await exchange.ping(id, signal);
    note("a ping", ping);
    pong = ping.replies.find((r) => r.id === id);
  }
  if (!pong && evidence.length === 0) return undefined;
  let modelNumber: number | undefined;
  let firmware: string | undefined;
  if (pong && setup.pingReportsModel) {
    modelNumber = decodeRegister(table.modelNumber, pong.data, 0);
    firmware = pong.data.length >= 3 ? String(pong.data[2]) : undefined;
  } else {
    const first = Math.min(table.modelNumber.address, ...setup.firmware.map((r) => r.address));
    const last = Math.max(
      table.modelNumber.address + table.modelNumber.size,
      ...setup.firmware.map((r) => r.address + r.size),
    );
    let data: Uint8Array | undefined;
    for (let attempt = 0; attempt < 3 && !data && evidence.length === 0; attempt++) {
      const info = await exchange.read(id, first, last - first, signal);
      note("a read of its model", info);
      data = info.replies.find((r) => r.id === id)?.data;
    }
    if (data) {
      modelNumber = decodeRegister(table.modelNumber, data, table.modelNumber.address - first);
      firmware = firmwareOf(setup.firmware, data, first);
    }
  }
  const position = await readOnce(exchange, id, table.presentPosition, signal, (r) =>
    note("a read of its position", r),
  );
  const again = await readOnce(exchange, id, table.presentPosition, signal, (r) => note("a read of its position", r));
  if (position === undefined && again === undefined && pong)
    evidence.push("it answers a ping but not a read of its position");
  return {
    id,
    modelNumber,
    model: modelName(protocol, modelNumber),
    firmware,
    position: again ?? position,
    sharedIdEvidence: evidence.length > 0 ? evidence.join("; ") : undefined,
  };
}

async function readOnce(
  exchange: BusExchange,
  id: number,
  reg: Register,
  signal: AbortSignal | undefined,
  note: (r: { replies: readonly unknown[]; garbledBytes: number }) => void,
): Promise<number | undefined> {
  const r = await exchange.read(id, reg.address, reg.size, signal);
  note(r);
  const data = r.replies.find((x) => x.id === id && x.data.length === reg.size)?.data;
  return data ? decodeRegister(reg, data, 0) : undefined;
}

function firmwareOf(registers: readonly Register[], data: Uint8Array, first: number): string | undefined {
  const parts = registers.map((r) => decodeRegister(r, data, r.address - first));
  return parts.every((p) => p !== undefined) ? parts.join(".") : undefined;
}
