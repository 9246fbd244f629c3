import { afterEach, describe, expect, it } from "vitest";
import { BUS_PROTOCOLS, protocolNamed } from "../../src/protocol/bus/index.js";
import { countOf } from "../../src/protocol/bus/servoAxes.js";
import { closeBusRigs, startBusRig } from "./busRig.js";

afterEach(closeBusRigs);

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe.each(BUS_PROTOCOLS)("a goal beyond the servo's own Min/Max_Position_Limit, %s", (protocol) => {
  it("is refused before anything is sent, naming the servo's limits; a goal inside them moves", async () => {
    const rig = await startBusRig(protocol, { seed: 3 });
    const { sim, transport, effects } = rig;
    const t = protocolNamed(protocol).table;
    const elbow = sim.bus.all.find((s) => s.axis.name === "elbow")!;
    // Limits written into the servo (as LeRobot's write_calibration does): 0.4 rad of travel either side of where it rests.
    const home = rig.config.arm.joints.find((j) => j.name === "elbow")!.home;
    const [a, b] = [Math.round(countOf(elbow.axis, home - 0.4)), Math.round(countOf(elbow.axis, home + 0.4))];
    elbow.set(t.setup.minPositionLimit, Math.min(a, b));
    elbow.set(t.setup.maxPositionLimit, Math.max(a, b));
    await transport.open(AbortSignal.timeout(5000));
    // The limits are read on the status loop's slow schedule, first thing after opening.
    for (let i = 0; i < 100 && !transport.servos.health().every((h) => h.temperature_limit_c !== undefined); i++)
      await sleep(20);
    const executor = rig.executor();

    const [beyond] = await executor.execute(
      [{ id: "far", name: "move_joints", args: { positions: { elbow: home + 1.0 } } }],
      { deadlineMs: 8000 },
    );
    expect(beyond!.result.status).toBe("failed");
    expect(beyond!.result.message).toMatch(
      /servo 3 \(elbow\) would (refuse|stop short of) count \d+: its own Min\/Max_Position_Limit are \d+\.\.\d+/,
    );
    expect(effects.events.filter((e) => e.event === "motion_start")).toHaveLength(0);

    const [inside] = await executor.execute(
      [{ id: "near", name: "move_joints", args: { positions: { elbow: home + 0.3 } } }],
      { deadlineMs: 8000 },
    );
    expect(inside!.result.status).toBe("done");
    expect(effects.events.filter((e) => e.event === "motion_start")).toHaveLength(1);
  });
});
