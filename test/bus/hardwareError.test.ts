import { afterEach, describe, expect, it } from "vitest";
import type { MemoryEffects } from "../../firmware-sim/EffectsLog.js";
import { overlapsIn } from "../../firmware-sim/effectsJudge.js";
import type { Executor } from "../../src/executor/Executor.js";
import { BUS_PROTOCOLS, type BusProtocolName } from "../../src/protocol/bus/index.js";
import { closeBusRigs, startBusRig, type BusRig } from "./busRig.js";

afterEach(closeBusRigs);

async function rig(protocol: BusProtocolName): Promise<Omit<BusRig, "executor"> & { readonly executor: Executor }> {
  const r = await startBusRig(protocol, { seed: 5, open: true });
  return { ...r, executor: r.executor() };
}

const ELBOW_SERVO = 3;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const starts = (effects: MemoryEffects): number => effects.events.filter((e) => e.event === "motion_start").length;

describe.each(BUS_PROTOCOLS)("a servo that shuts down on a hardware error, %s", (protocol) => {
  it("mid-motion: the motion ends faulted and is judged by the pose (it moved, so never failed); the servo stays off; motions on it are refused unsent; other joints still move", async () => {
    const { sim, transport, effects, executor } = await rig(protocol);
    const run = executor.execute([{ id: "m", name: "move_joints", args: { positions: { elbow: -1.5 }, speed: 0.3 } }], {
      deadlineMs: 10_000,
    });
    await sleep(400);
    sim.bus.shutDownOnCue(ELBOW_SERVO);
    const [m] = await run;
    // It moved part-way and stopped: not the effect asked for, not "nothing happened" either.
    expect(m!.result.status).toBe("unknown");
    const end = effects.events.find((e) => e.event === "motion_end");
    expect(end?.outcome).toBe("faulted");
    expect(Math.abs((end?.to?.elbow ?? 0) - (end?.from?.elbow ?? 0))).toBeGreaterThan(0.05);
    expect(transport.latestStatus()!.faults.join(" ")).toMatch(/overload/);

    // Past the time a Feetech Status bit takes to clear: still no torque, nobody re-armed it.
    await sleep(500);
    expect(sim.bus.servos.get(ELBOW_SERVO)!.torque).toBe(false);
    // Dynamixel latches the error until a REBOOT; a Feetech Status bit follows the (gone) load.
    expect(sim.bus.servos.get(ELBOW_SERVO)!.hardwareError !== 0).toBe(protocol === "dynamixel_2");
    expect(transport.latestStatus()!.faults.join(" ")).toMatch(/servo 3 \(elbow\)/);

    const unknownId = m!.result.status === "unknown" ? m!.result.action_id! : "";
    executor.confirm(unknownId, { outcome: "not_done", operator: "test", note: "stopped part-way on an overload" });
    const startsBefore = starts(effects);
    const [refused] = await executor.execute(
      [{ id: "again", name: "move_joints", args: { positions: { elbow: 0.5 } } }],
      { deadlineMs: 5000 },
    );
    expect(refused!.result.status).toBe("blocked");
    // The transport's refusal names the trip with its code (the call's message carries its text).
    const end2 = await transport.runMotion(
      { actionId: "direct", targets: { elbow: 0.5 }, speed: 0.5 },
      AbortSignal.timeout(2000),
    );
    expect(end2.kind === "refused" ? end2.error.code : end2.kind).toBe("ARMB_ERR_SERVO_TRIPPED");
    expect(starts(effects)).toBe(startsBefore);

    const [other] = await executor.execute(
      [{ id: "pan", name: "move_joints", args: { positions: { shoulder_pan: 0.3 } } }],
      { deadlineMs: 8000 },
    );
    expect(other!.result.status).toBe("done");
    expect(overlapsIn(effects.events)).toBe(0);
  });

  it("recovery is the operator's: REBOOT (Dynamixel) or a cleared Status (Feetech), then torque on holding the present position — the arm does not move", async () => {
    const { sim, transport, effects, executor } = await rig(protocol);
    sim.bus.shutDownOnCue(ELBOW_SERVO);
    await sleep(50);
    // Feetech reports the overload while it lasts; a Dynamixel REBOOT clears its latch at once.
    const early = await transport.servos.recover({ axes: ["elbow"], signal: AbortSignal.timeout(5000) });
    expect(early.map((r) => r.outcome)).toEqual([protocol === "feetech_sts" ? "still_in_error" : "recovered"]);
    if (protocol === "feetech_sts") {
      expect(sim.bus.servos.get(ELBOW_SERVO)!.torque).toBe(false);
      await sleep(400);
      const late = await transport.servos.recover({ signal: AbortSignal.timeout(5000) });
      expect(late).toEqual([expect.objectContaining({ axis: "elbow", outcome: "recovered" })]);
    }
    const servo = sim.bus.servos.get(ELBOW_SERVO)!;
    expect(servo.torque).toBe(true);
    expect(sim.bus.goalOf(ELBOW_SERVO)).toBe(Math.round(servo.position));
    expect(starts(effects)).toBe(0);
    expect(effects.events.filter((e) => e.event === "reboot")).toHaveLength(protocol === "dynamixel_2" ? 1 : 0);
    await sleep(100);
    expect(transport.latestStatus()!.faults).toEqual([]);
    // A second recovery has nothing to do and sends nothing that moves.
    expect(
      (await transport.servos.recover({ axes: ["elbow"], signal: AbortSignal.timeout(5000) })).map((r) => r.outcome),
    ).toEqual(["not_needed"]);

    const [m] = await executor.execute([{ id: "after", name: "move_joints", args: { positions: { elbow: 0.4 } } }], {
      deadlineMs: 8000,
    });
    expect(m!.result.status).toBe("done");
    expect(starts(effects)).toBe(1);
  });

  it("a recover the moment after a trip is judged on a fresh read of the servo, never 'nothing to recover' from the status loop's older cycle", async () => {
    const { sim, transport, effects } = await rig(protocol);
    sim.bus.shutDownOnCue(ELBOW_SERVO);
    const [r] = await transport.servos.recover({ axes: ["elbow"], signal: AbortSignal.timeout(5000) });
    expect(r?.outcome).toBe(protocol === "feetech_sts" ? "still_in_error" : "recovered");
    expect(starts(effects)).toBe(0);
  });

  it("four concurrent recovers of one tripped servo: one recovered, the others already in progress or nothing to recover; one reboot at most", async () => {
    const { sim, transport, effects } = await rig(protocol);
    sim.bus.shutDownOnCue(ELBOW_SERVO);
    // Past the time a Feetech Status bit takes to clear (a Dynamixel latches it until the REBOOT).
    await sleep(450);
    const answers = await Promise.all(
      Array.from({ length: 4 }, () => transport.servos.recover({ axes: ["elbow"], signal: AbortSignal.timeout(8000) })),
    );
    const outcomes = answers.map((a) => a[0]?.outcome);
    expect(outcomes.filter((o) => o === "recovered")).toHaveLength(1);
    for (const o of outcomes.filter((x) => x !== "recovered")) expect(["in_progress", "not_needed"]).toContain(o);
    expect(effects.events.filter((e) => e.event === "reboot")).toHaveLength(protocol === "dynamixel_2" ? 1 : 0);
    expect(sim.bus.servos.get(ELBOW_SERVO)!.torque).toBe(true);
    // Once it is over, another request has nothing to recover.
    expect(
      (await transport.servos.recover({ axes: ["elbow"], signal: AbortSignal.timeout(5000) })).map((r) => r.outcome),
    ).toEqual(["not_needed"]);
    expect(starts(effects)).toBe(0);
  });
});
