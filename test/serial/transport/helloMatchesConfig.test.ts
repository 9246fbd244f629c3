import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../../src/config/loadConfig.js";
import { isArmbridgeError } from "../../../src/errors.js";
import { testConfig } from "../../support/testConfig.js";
import { scriptedRig } from "./scriptedRig.js";

const config = loadConfig();
const cleanups: (() => Promise<void> | void)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The next float32 above `x` (one unit in the last place). */
function nextFloat32Up(x: number): number {
  const f = new Float32Array([x]);
  const bits = new Uint32Array(f.buffer);
  bits[0] = (bits[0] ?? 0) + (x >= 0 ? 1 : -1);
  return f[0] ?? Number.NaN;
}

async function openError(transport: { open(): Promise<void> }): Promise<unknown> {
  return transport.open().then(
    () => undefined,
    (error: unknown) => error,
  );
}

// docs/serial-protocol.md §3.1: what "HELLO matches the config" means.
describe("HELLO matches the arm config", () => {
  it("in any axis order, with limits equal to the config's at float32: MOVE then indexes by the HELLO's order", async () => {
    const { transport, device } = scriptedRig(config, cleanups);
    device.axes = [...device.axes].reverse();
    await transport.open();
    expect(transport.device?.axes).toEqual(device.axes.map((a) => a.name));
    // The scripted device never ends a motion: stop waiting once the MOVE is out.
    await transport.runMotion({ actionId: "a-order", targets: { elbow: 0.5 }, speed: 0.5 }, AbortSignal.timeout(200));
    const move = device.framesOf("MOVE")[0]?.message;
    expect(move?.targets).toEqual([{ axis: device.axes.findIndex((a) => a.name === "elbow"), position: 0.5 }]);
  });

  it("refuses a device whose limit differs from the config's, even by one float32 step", async () => {
    for (const [field, value] of [
      ["max", 2.7],
      ["max", nextFloat32Up(2.6)],
      ["maxVelocity", 1.5],
      ["maxAcceleration", 5],
    ] as const) {
      const { transport, device } = scriptedRig(config, cleanups);
      device.axes = device.axes.map((a) => (a.name === "elbow" ? { ...a, [field]: value } : a));
      const error = await openError(transport);
      expect(isArmbridgeError(error, "ARMB_ERR_DEVICE_MISMATCH"), `${field} ${value}`).toBe(true);
      expect(transport.connectionState).toBe("idle");
    }
  });

  it("refuses a STATUS rate below two frames per stale_after_ms, and accepts it where the config allows staler poses", async () => {
    // 1000 / 300 ms ≈ 3 Hz; stale_after_ms 500 needs 4 Hz.
    const slow = scriptedRig(config, cleanups, { statusMs: 300 });
    expect(isArmbridgeError(await openError(slow.transport), "ARMB_ERR_DEVICE_MISMATCH")).toBe(true);
    const patient = scriptedRig(testConfig({ stale_after_ms: 1000 }), cleanups, { statusMs: 300 });
    expect(await openError(patient.transport)).toBeUndefined();
  });

  it("refuses a watchdog shorter than 100 ms (0, none, is fine)", async () => {
    const short = scriptedRig(config, cleanups);
    short.device.watchdogMs = 50;
    expect(isArmbridgeError(await openError(short.transport), "ARMB_ERR_DEVICE_MISMATCH")).toBe(true);
    for (const watchdogMs of [0, 100]) {
      const ok = scriptedRig(config, cleanups);
      ok.device.watchdogMs = watchdogMs;
      expect(await openError(ok.transport), `watchdog ${watchdogMs}`).toBeUndefined();
    }
  });
});
