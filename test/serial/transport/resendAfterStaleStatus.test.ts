import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../../src/config/loadConfig.js";
import { scriptedRig, sleep, until } from "./scriptedRig.js";

const config = loadConfig();
const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe("MOVE resend gate", () => {
  it("a same-boot STATUS long before the resend is no proof: the device that rebooted after it does not run the MOVE again", async () => {
    // STATUS every 20 ms; the MOVE's ACK timeout is much longer, so a STATUS from the old boot always lands between send and resend.
    const { device, transport } = scriptedRig(config, cleanups, {
      statusMs: 20,
      transport: { ackTimeoutMs: 120, maxResends: 3, completionPollMs: 10_000 },
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
    const ended = transport.runMotion(
      { actionId: "a-stale-gate", targets: { elbow: 0.5 }, speed: 0.5 },
      AbortSignal.timeout(10_000),
    );
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
