import type { Actuator } from "../../config/actuators.js";
import { ArmbridgeError } from "../../errors.js";
import { PROTOCOL_VERSION, type MessageOf } from "../../protocol/serial/index.js";

/** A device that passed the handshake: its HELLO, and its axis order (MOVE, STOP and STATUS index by it). */
export interface ConnectedDevice {
  readonly hello: MessageOf<"HELLO">;
  readonly axisNames: readonly string[];
  readonly axisIndex: ReadonlyMap<string, number>;
}

/** The config's side of the handshake. */
export interface HelloExpectation {
  readonly axes: readonly Pick<Actuator, "name" | "kind" | "min" | "max" | "maxVelocity" | "maxAcceleration">[];
  /** The config's stale_after_ms: a pose older than this is stale. */
  readonly staleAfterMs: number;
}

/** The smallest non-zero watchdog a device may announce (docs/serial-protocol.md §5). */
export const MIN_WATCHDOG_MS = 100;

const LIMIT_FIELDS = ["min", "max", "maxVelocity", "maxAcceleration"] as const;

/**
 * Accepts a HELLO that matches the arm config, or throws
 * ARMB_ERR_DEVICE_MISMATCH naming what differs (docs/serial-protocol.md §3.1):
 * - the same axis names and kinds, in any order (indices follow the HELLO);
 * - each axis's limits equal to the config's rounded to float32, the only
 *   precision the wire has;
 * - a STATUS stream of at least two frames per stale_after_ms, so one late
 *   or lost frame does not make the pose look stale;
 * - no watchdog, or one the heartbeat can feed (at least MIN_WATCHDOG_MS).
 */
export function checkHello(hello: MessageOf<"HELLO">, expected: HelloExpectation): ConnectedDevice {
  const mismatch = (detail: string): ArmbridgeError => new ArmbridgeError("ARMB_ERR_DEVICE_MISMATCH", { detail });
  if (hello.protocolVersion !== PROTOCOL_VERSION) {
    throw mismatch(`protocol version ${hello.protocolVersion} (this bridge speaks ${PROTOCOL_VERSION})`);
  }
  const device = hello.axes.map((a) => `${a.name}:${a.kind}`).sort();
  const wanted = expected.axes.map((a) => `${a.name}:${a.kind}`).sort();
  if (device.length !== wanted.length || device.some((axis, i) => axis !== wanted[i])) {
    throw mismatch(
      `${hello.axes.length} axes [${hello.axes.map((a) => a.name).join(", ")}]; the config has ${wanted.length} [${expected.axes.map((a) => a.name).join(", ")}]`,
    );
  }
  const byName = new Map(expected.axes.map((a) => [a.name, a]));
  for (const axis of hello.axes) {
    const config = byName.get(axis.name);
    if (!config) continue;
    for (const field of LIMIT_FIELDS) {
      if (axis[field] !== Math.fround(config[field])) {
        throw mismatch(
          `${axis.name} ${field} ${axis[field]} (the config has ${config[field]}, ${Math.fround(config[field])} as float32)`,
        );
      }
    }
  }
  if (hello.statusRateHz * expected.staleAfterMs < 2000) {
    throw mismatch(
      `a STATUS rate of ${hello.statusRateHz} Hz; stale_after_ms ${expected.staleAfterMs} needs at least ${Math.ceil(2000 / expected.staleAfterMs)} Hz (two frames per stale_after_ms)`,
    );
  }
  if (hello.watchdogMs > 0 && hello.watchdogMs < MIN_WATCHDOG_MS) {
    throw mismatch(`a ${hello.watchdogMs} ms watchdog; the protocol allows 0 (none) or at least ${MIN_WATCHDOG_MS} ms`);
  }
  const axisNames = hello.axes.map((a) => a.name);
  return { hello, axisNames, axisIndex: new Map(axisNames.map((name, i) => [name, i])) };
}
