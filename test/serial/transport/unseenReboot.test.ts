import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../../src/config/loadConfig.js";
import type { SerialTransport } from "../../../src/transport/serial/SerialTransport.js";
import type { ScriptedDevice } from "./ScriptedDevice.js";
import { scriptedRig, sleep, until } from "./scriptedRig.js";

const config = loadConfig();
const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function setup(): { device: ScriptedDevice; transport: SerialTransport } {
  return scriptedRig(config, cleanups);
}

/** Sends a motion, lets the device accept it, then stops waiting: the action was sent in the current boot. */
async function sendAndLeave(device: ScriptedDevice, transport: SerialTransport, actionId: string): Promise<void> {
  const wait = new AbortController();
  const ended = transport.runMotion({ actionId, targets: { elbow: 0.5 }, speed: 0.5 }, wait.signal);
  await until(() => device.records.has(actionId), "device accepted the move");
  wait.abort();
  expect((await ended).kind).toBe("wait_ended");
}

describe("a device reboot the host has not yet seen on STATUS", () => {
  it("a voided answer given by the rebooted device before its first STATUS is not reported as moved:false", async () => {
    const { transport, device } = setup();
    await transport.open();
    await sendAndLeave(device, transport, "a-unseen");
    // The device reboots and answers before it streams any STATUS (an MCU coming up, a dropped or frozen STATUS).
    device.streamStatus = false;
    device.reboot();
    const answer = transport.queryAction("a-unseen", { voidIfUnknown: true, signal: AbortSignal.timeout(2000) });
    await until(() => device.framesOf("QUERY_ACTION").length > 0, "query sent");
    await sleep(40);
    device.streamStatus = true;
    const record = await answer;
    expect(record).toMatchObject({ actionId: "a-unseen", state: "unknown", moved: undefined });
  });

  it("a voided answer that no STATUS ever confirms (the caller's signal fires first) is not reported as moved:false", async () => {
    const { transport, device } = setup();
    await transport.open();
    await sendAndLeave(device, transport, "a-silent");
    device.streamStatus = false;
    device.reboot();
    const record = await transport.queryAction("a-silent", { voidIfUnknown: true, signal: AbortSignal.timeout(300) });
    expect(record?.moved).toBeUndefined();
    expect(record?.state).toBe("unknown");
  });

  it("without a reboot, a voided answer still counts as positive evidence (moved:false)", async () => {
    const { transport } = setup();
    await transport.open();
    const record = await transport.queryAction("a-never-sent", {
      voidIfUnknown: true,
      signal: AbortSignal.timeout(2000),
    });
    expect(record).toMatchObject({ actionId: "a-never-sent", state: "voided", moved: false });
  });

  it("armIncarnation names the new boot once a STATUS showed the reboot", async () => {
    const { transport, device } = setup();
    await transport.open();
    expect(transport.identity.incarnation()).toBe("boot:1");
    const reboots: number[] = [];
    transport.onReboot((r) => reboots.push(r.bootId));
    device.reboot();
    await until(() => reboots.length === 1, "reboot seen on STATUS");
    expect(transport.identity.incarnation()).toBe("boot:2");
  });
});
