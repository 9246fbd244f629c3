import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../../src/config/loadConfig.js";
import { scriptedRig, until } from "./scriptedRig.js";

const config = loadConfig();
const cleanups: (() => Promise<void> | void)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe("a QUERY_ACTION out when the device's reboot is seen", () => {
  it("answers unknown (the device forgot the action), not 'could not ask'", async () => {
    // Long ACK timeout: the new boot's first STATUS, not a timeout, ends the query.
    const { device, transport } = scriptedRig(config, cleanups, {
      statusMs: 20,
      transport: { ackTimeoutMs: 3000, completionPollMs: 60_000 },
    });
    await transport.open();
    const run = transport.runMotion(
      { actionId: "a-q-reboot", targets: { elbow: 0.5 }, speed: 0.5 },
      AbortSignal.timeout(10_000),
    );
    await until(() => device.executions.get("a-q-reboot") === 1, "the MOVE ran");
    // The device power-cycles as the query arrives; its answer is lost on the wire.
    device.loseReplies.set("QUERY_ACTION", 1);
    device.beforeFrame = (message) => {
      if (message.op === "QUERY_ACTION") device.reboot();
    };

    const asked = await transport.queryAction("a-q-reboot", { voidIfUnknown: true, signal: AbortSignal.timeout(5000) });

    expect(device.framesOf("QUERY_ACTION")).toHaveLength(1);
    expect(asked).toMatchObject({ state: "unknown", moved: undefined });
    expect(await run).toMatchObject({ kind: "link_error", error: { code: "ARMB_ERR_DEVICE_REBOOTED" } });
    expect(device.executions.get("a-q-reboot")).toBe(1);
  });
});
