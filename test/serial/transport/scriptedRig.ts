import type { ArmConfig } from "../../../src/config/ArmConfig.js";
import { createMemoryLinkPair } from "../../../src/transport/link/MemoryLink.js";
import { SerialTransport, type SerialTransportOptions } from "../../../src/transport/serial/SerialTransport.js";
import { ScriptedDevice } from "./ScriptedDevice.js";

/** Fast timings for a scripted device on a memory link. */
export const FAST_TRANSPORT: SerialTransportOptions = {
  ackTimeoutMs: 30,
  maxResends: 3,
  completionPollMs: 100,
  backoff: { initialMs: 10, maxMs: 40 },
};

/**
 * A SerialTransport wired to a ScriptedDevice over an in-memory link; the
 * pair is closed by the cleanup it registers. `statusMs` makes the device
 * stream STATUS at that period.
 */
export function scriptedRig(
  config: ArmConfig,
  cleanups: (() => void | Promise<void>)[],
  options: { transport?: SerialTransportOptions; statusMs?: number } = {},
): { device: ScriptedDevice; transport: SerialTransport } {
  const { host, device: end } = createMemoryLinkPair();
  const device =
    options.statusMs === undefined
      ? new ScriptedDevice(end, config)
      : new ScriptedDevice(end, config, options.statusMs);
  const transport = new SerialTransport(config, host, { ...FAST_TRANSPORT, ...options.transport });
  cleanups.push(async () => {
    await transport.close();
    device.stop();
  });
  return { device, transport };
}

/** Waits for a condition the test needs before it can go on; fails the test if it never holds. */
export async function until(condition: () => boolean, what: string, limitMs = 5000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > limitMs) throw new Error(`never happened: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
