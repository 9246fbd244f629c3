import { broadcastPingWaitMs, type BusProtocolName } from "../../../protocol/bus/index.js";
import type { BusExchange } from "./BusExchange.js";
import { identifyServo } from "./identifyServo.js";

/** One servo that answered: the record `armbridge bus scan` prints. */
export interface ScannedServo {
  readonly protocol: BusProtocolName;
  readonly id: number;
  /** The model's name, or `unknown (N)` for a model number armbridge does not know. */
  readonly model: string;
  readonly model_number: number | undefined;
  readonly firmware: string | undefined;
  /** The baud it answered at. */
  readonly baud: number;
  readonly position: number | undefined;
  /** Set when the answers for this id look like two or more servos (what was seen). */
  readonly shared_id: string | undefined;
}

export interface BusScanResult {
  readonly servos: readonly ScannedServo[];
  /** Things a person should do something about: a shared id, garbled answers, a baud the line could not take. */
  readonly hints: readonly string[];
  /** The bauds scanned. */
  readonly bauds: readonly number[];
}

export interface ScanOptions {
  readonly bauds: readonly number[];
  /** broadcast: one broadcast ping per baud (both protocols answer it); sweep: a ping to every id (slower; for buses where a broadcast ping is not answered). */
  readonly method: "broadcast" | "sweep";
  readonly signal?: AbortSignal;
  /** Called as each baud starts, for progress on a terminal. */
  readonly onBaud?: (baud: number) => void;
}

/**
 * Every servo that answers on one bus, at each baud in turn: who is there
 * (broadcast ping, or a ping per id), then each one asked for its model,
 * firmware and position (identifyServo). Servos at other bauds stay silent:
 * a UART set to another rate does not make out the packet.
 */
export async function scanBus(exchange: BusExchange, options: ScanOptions): Promise<BusScanResult> {
  const { protocol } = exchange;
  const setup = protocol.table.setup;
  const servos: ScannedServo[] = [];
  const hints: string[] = [];
  for (const baud of options.bauds) {
    options.signal?.throwIfAborted();
    options.onBaud?.(baud);
    await exchange.setBaud(baud, options.signal);
    const ids = new Set<number>();
    let garbled = 0;
    if (options.method === "broadcast") {
      const r = await exchange.transact(protocol.ping(protocol.broadcastId), {
        expect: { ids: "any", length: exchange.pingReplyLength, keepDuplicates: true },
        timeoutMs: broadcastPingWaitMs(setup, baud),
        signal: options.signal,
      });
      for (const reply of r.replies) ids.add(reply.id);
      garbled += r.garbledBytes;
    } else {
      for (let id = setup.ids.min; id <= setup.ids.max; id++) {
        const r = await exchange.ping(id, options.signal);
        if (r.replies.some((x) => x.id === id) || r.garbledBytes > 0) ids.add(id);
        garbled += r.garbledBytes;
      }
    }
    if (garbled > 0) {
      hints.push(
        `${protocol.name} at ${baud} baud: ${garbled} bytes of the answers were garbled — two servos answering at once (a shared id), noise on the wiring, or a servo at a nearby baud`,
      );
    }
    for (const id of [...ids].sort((a, b) => a - b)) {
      const who = await identifyServo(exchange, id, options.signal);
      if (!who) continue;
      servos.push({
        protocol: protocol.name,
        id,
        model: who.model ?? (who.modelNumber === undefined ? "unknown" : `unknown (${who.modelNumber})`),
        model_number: who.modelNumber,
        firmware: who.firmware,
        baud,
        position: who.position,
        shared_id: who.sharedIdEvidence,
      });
      if (who.sharedIdEvidence !== undefined) {
        hints.push(
          `id ${id} at ${baud} baud seems to be shared by two or more servos (${who.sharedIdEvidence}): connect them one at a time and give each its own id with \`armbridge bus set-id\``,
        );
      }
    }
  }
  return { servos, hints, bauds: options.bauds };
}

/** The bauds a scan tries when none are given: the family's factory rate first, then the rest, fastest first. */
export function defaultScanBauds(exchange: BusExchange): number[] {
  const setup = exchange.protocol.table.setup;
  const all = Object.keys(setup.baudValues).map(Number);
  return [setup.factoryBaud, ...all.filter((b) => b !== setup.factoryBaud).sort((a, b) => b - a)];
}
