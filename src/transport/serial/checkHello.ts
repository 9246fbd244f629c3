import type { Actuator } from "../../config/actuators.js";
import { ArmbridgeError } from "../../errors.js";
import { PROTOCOL_VERSION, type MessageOf } from "./protocol/index.js";

/** A device that passed the handshake: its HELLO, and its axis order (MOVE, STOP and STATUS index by it). */
export interface ConnectedDevice {
  readonly hello: MessageOf<"HELLO">;
  readonly axisNames: readonly string[];
  readonly axisIndex: ReadonlyMap<string, number>;
}

/** The config's side of the handshake. */
export type ExpectedAxis = Pick<Actuator, "name" | "kind">;

/**
 * Accepts a HELLO that matches the arm config, or throws
 * ARMB_ERR_DEVICE_MISMATCH naming what differs (docs/serial-protocol.md §3.1).
 */
export function checkHello(hello: MessageOf<"HELLO">, expectedAxes: readonly ExpectedAxis[]): ConnectedDevice {
  const mismatch = (detail: string): ArmbridgeError => new ArmbridgeError("ARMB_ERR_DEVICE_MISMATCH", { detail });
  if (hello.protocolVersion !== PROTOCOL_VERSION) {
    throw mismatch(`protocol version ${hello.protocolVersion} (this bridge speaks ${PROTOCOL_VERSION})`);
  }
  const device = hello.axes.map((a) => `${a.name}:${a.kind}`).sort();
  const expected = expectedAxes.map((a) => `${a.name}:${a.kind}`).sort();
  if (device.length !== expected.length || device.some((axis, i) => axis !== expected[i])) {
    throw mismatch(`${hello.axes.length} axes [${hello.axes.map((a) => a.name).join(", ")}]; the config has ${expected.length} [${expectedAxes.map((a) => a.name).join(", ")}]`);
  }
  const axisNames = hello.axes.map((a) => a.name);
  return { hello, axisNames, axisIndex: new Map(axisNames.map((name, i) => [name, i])) };
}
