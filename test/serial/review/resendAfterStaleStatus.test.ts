import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../../src/config/loadConfig.js";
import { SerialTransport } from "../../../src/transport/serial/SerialTransport.js";
import { createMemoryLinkPair } from "../../../src/transport/serial/link/MemoryLink.js";
import { ScriptedDevice } from "../transport/ScriptedDevice.js";

const config = loadConfig();
const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function until(condition: () => boolean, what: string, limitMs = 5000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > limitMs) throw new Error(`never happened: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe("MOVE resend gate", () => {
  it("a same-boot STATUS long before the resend is no proof: the device that rebooted after it does not run the MOVE again", async () => {
    const { host, device: end } = createMemoryLinkPair();
    // STATUS every 20 ms; the MOVE's ACK timeout is much longer, so a STATUS from the old boot always lands between send and resend.
    const device = new ScriptedDevice(end, config, 20);
    const transport = new SerialTransport(config, host, { ackTimeoutMs: 120, maxResends: 3, completionPollMs: 10_000 });
    cleanups.push(async () => {
      await transport.close();
      device.stop();
    });
    await transport.open();
    device.loseReplies.set("MOVE", 1);
    // The device reboots right after the first STATUS that follows the MOVE, and stays quiet for a while (an MCU booting).
    let rebootAfterMove = false;
    transport.onStatus(() => {
      if (!rebootAfterMove) return;
      rebootAfterMove = false;
      device.streamStatus = false;
      device.reboot();
    });
    const ended = transport.runMotion({ actionId: "a-stale-gate", targets: { elbow: 0.5 }, speed: 0.5 }, AbortSignal.timeout(10_000));
    await until(() => device.records.has("a-stale-gate"), "MOVE heard");
    rebootAfterMove = true;
    await until(() => device.bootId === 2, "reboot");
    await sleep(300);
    device.streamStatus = true;
    const result = await ended;
    expect(device.executions.get("a-stale-gate")).toBe(1);
    expect(result).toMatchObject({ kind: "link_error", error: { code: "ARMB_ERR_DEVICE_REBOOTED" } });
  });
});
