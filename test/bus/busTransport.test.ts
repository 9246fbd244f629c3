import { afterEach, describe, expect, it } from "vitest";
import type { RunningBusSimulator } from "../../firmware-sim/bus/startBusSimulator.js";
import { POWER_ON_GOAL_OFFSET } from "../../firmware-sim/bus/SimServo.js";
import { overlapsIn } from "../../firmware-sim/effectsJudge.js";
import { composeExecutor } from "../../src/bridge/composeExecutor.js";
import { IntentLedger } from "../../src/ledger/IntentLedger.js";
import { createDefaultTools } from "../../src/tools/defaultTools.js";
import { BUS_PROTOCOLS, type BusProtocolName } from "../../src/protocol/bus/index.js";
import type { FaultRates } from "../../firmware-sim/faults.js";
import { closeBusRigs, startBusRig, type BusRig } from "./busRig.js";

afterEach(closeBusRigs);

const rig = (protocol: BusProtocolName, faults: Partial<FaultRates> = {}, seed = 3): Promise<BusRig> =>
  startBusRig(protocol, { seed, faults });

describe.each(BUS_PROTOCOLS)("servo bus %s", (protocol) => {
  it("opening enables torque without moving the arm, though every servo powers up with a goal away from its position", async () => {
    const { sim, transport, effects } = await rig(protocol);
    const before = [...sim.bus.servos.values()].map((s) => ({
      id: s.axis.id,
      goal: sim.bus.goalOf(s.axis.id),
      at: Math.round(s.position),
    }));
    for (const b of before) expect(b.goal).toBe(b.at + POWER_ON_GOAL_OFFSET);
    await transport.open(AbortSignal.timeout(5000));
    await new Promise((r) => setTimeout(r, 200));
    expect(effects.events.filter((e) => e.event === "motion_start")).toEqual([]);
    for (const s of sim.bus.servos.values()) expect(s.torque).toBe(true);
    expect(transport.latestStatus()!.faults).toEqual([]);
  });

  it("a servo that loses power mid-motion: the motion is unknown (never failed), the incarnation changes, torque comes back holding", async () => {
    const { sim, transport, effects, config } = await rig(protocol);
    await transport.open(AbortSignal.timeout(5000));
    const before = transport.identity.incarnation();
    const ledger = IntentLedger.open(":memory:");
    const executor = composeExecutor({ config, registry: createDefaultTools(config), transport, ledger });
    try {
      const run = executor.execute(
        [{ id: "m", name: "move_joints", args: { positions: { elbow: -1.5 }, speed: 0.3 } }],
        { deadlineMs: 10_000 },
      );
      await new Promise((r) => setTimeout(r, 300));
      // Power loss of the elbow's servo (id 3), as firmware-sim's --reboot-rate does part-way.
      powerCycle(sim, 3);
      const [m] = await run;
      expect(m!.result.status).toBe("unknown");
      expect(transport.identity.incarnation()).not.toBe(before);
      expect(effects.events.some((e) => e.event === "reboot")).toBe(true);
      await new Promise((r) => setTimeout(r, 200));
      expect(sim.bus.servos.get(3)!.torque).toBe(true);
      expect(effects.events.filter((e) => e.event === "motion_start")).toHaveLength(1);
    } finally {
      executor.close();
      ledger.close();
    }
  });

  it("under lost and damaged packets, stalls and power losses: no motion runs twice, nothing overlaps, and `failed` only where the arm never moved", async () => {
    const { transport, effects, config } = await rig(
      protocol,
      { dropRate: 0.05, corruptRate: 0.03, stallRate: 0.1, rebootRate: 0.1 },
      11,
    );
    await transport.open(AbortSignal.timeout(10_000));
    const ledger = IntentLedger.open(":memory:");
    const executor = composeExecutor({ config, registry: createDefaultTools(config), transport, ledger });
    const results: { status: string; startsBefore: number; startsAfter: number }[] = [];
    try {
      for (let i = 0; i < 24; i++) {
        const startsBefore = effects.events.filter((e) => e.event === "motion_start").length;
        const [r] = await executor.execute(
          [{ id: `f${i}`, name: "move_joints", args: { positions: { shoulder_pan: i % 2 === 0 ? 0.5 : -0.5 } } }],
          { deadlineMs: 8000 },
        );
        const status = r!.result.status;
        if (status === "unknown" && r!.result.status === "unknown")
          executor.confirm(r!.result.action_id!, { outcome: "not_done", operator: "test" });
        // Let a motion that is still under way end before the next call.
        await new Promise((res) => setTimeout(res, 100));
        results.push({
          status,
          startsBefore,
          startsAfter: effects.events.filter((e) => e.event === "motion_start").length,
        });
      }
    } finally {
      executor.close();
      ledger.close();
    }
    const starts = effects.events.filter((e) => e.event === "motion_start").length;
    expect(starts).toBeLessThanOrEqual(results.length);
    for (const r of results) {
      // One call, at most one physical motion; a failed call none at all.
      expect(r.startsAfter - r.startsBefore).toBeLessThanOrEqual(1);
      if (r.status === "failed") expect(r.startsAfter).toBe(r.startsBefore);
    }
    expect(overlapsIn(effects.events)).toBe(0);
    expect(
      results.filter((r) => r.status === "done").length,
      JSON.stringify(results.map((r) => r.status)),
    ).toBeGreaterThan(0);
  }, 120_000);
});

function powerCycle(sim: RunningBusSimulator, id: number): void {
  sim.bus.powerCycle(id);
}
