import { afterEach, describe, expect, it } from "vitest";
import { composeExecutor } from "../../src/bridge/composeExecutor.js";
import { IntentLedger } from "../../src/ledger/IntentLedger.js";
import { createDefaultTools } from "../../src/tools/defaultTools.js";
import type { ServoBusTransport, ServoBusTransportOptions } from "../../src/transport/bus/index.js";
import { HEALTH_PERIOD_MS } from "../../src/transport/bus/StatusSchedule.js";
import type { ArmStatus } from "../../src/transport/Transport.js";
import { closeBusRigs, startBusRig, type BusRig } from "./busRig.js";

/**
 * Dynamixel 2.0 reads Torque_Enable..Hardware_Error_Status (64..70) only when
 * needed (StatusSchedule): these check that nothing it guarded is lost — a
 * hardware error via the alert bit, a power loss via the period and via the
 * verdict of a motion.
 */
afterEach(closeBusRigs);

const rig = (transport: ServoBusTransportOptions): Promise<BusRig> =>
  startBusRig("dynamixel_2", { seed: 7, transport, open: true });

/** Resolves with the first published status that satisfies `ok`. */
function statusWhere(transport: ServoBusTransport, ok: (s: ArmStatus) => boolean): Promise<ArmStatus> {
  return new Promise((resolve) => {
    const off = transport.onStatus((s) => {
      if (!ok(s)) return;
      off();
      resolve(s);
    });
  });
}

const cyclesPassed = (transport: ServoBusTransport, n: number): Promise<ArmStatus> => {
  const until = transport.cycles + n;
  return statusWhere(transport, () => transport.cycles >= until);
};

const ELBOW_SERVO = 3;
const HEALTH = 0;

describe("dynamixel_2 status cycle: 122..135 every cycle, 64..70 when needed", () => {
  it("a hardware error is named within one cycle of the alert bit, with no periodic read to fall back on", async () => {
    // A period no test run reaches: only the alert bit can bring 64..70 in.
    const { sim, transport } = await rig({ healthPeriodMs: 3_600_000 });
    await cyclesPassed(transport, 20);
    const healthReads = transport.statusBlockReads[HEALTH]!;
    const c0 = transport.cycles;
    sim.bus.shutDownOnCue(ELBOW_SERVO);
    const seen = await statusWhere(transport, (s) => s.faults.some((f) => f.includes("overload")));
    // The cycle in flight when it tripped, then the one whose 122..135 replies carried the alert and read 64..70.
    expect(transport.cycles - c0).toBeLessThanOrEqual(2);
    expect(seen.faults.join("; ")).toMatch(/servo 3 \(elbow\): overload/);
    expect(transport.statusBlockReads[HEALTH]!).toBeGreaterThan(healthReads);
    // Tripped, not a power loss: the incarnation is the same and nobody re-arms it.
    await cyclesPassed(transport, 10);
    expect(sim.bus.servos.get(ELBOW_SERVO)!.torque).toBe(false);
  });

  it(`idle, 64..70 is read only on its period (${HEALTH_PERIOD_MS} ms), not every cycle`, async () => {
    let t = 1_000_000;
    const { transport } = await rig({ now: () => t });
    await cyclesPassed(transport, 5);
    const before = [...transport.statusBlockReads];
    // The transport's clock stands still: no period elapses, no alert, no gap, no motion.
    await cyclesPassed(transport, 30);
    const after = transport.statusBlockReads;
    expect(after[1]! - before[1]!).toBeGreaterThanOrEqual(30);
    expect(after[HEALTH]! - before[HEALTH]!).toBe(0);
    t += HEALTH_PERIOD_MS;
    await cyclesPassed(transport, 2);
    expect(transport.statusBlockReads[HEALTH]! - before[HEALTH]!).toBe(1);
  });

  it(`a power loss with no gap in the replies (torque off, no error) is noticed within ${HEALTH_PERIOD_MS} ms + two cycles of the last 64..70 read, and the servo holds again`, async () => {
    let t = 1_000_000;
    const { sim, transport } = await rig({ now: () => t });
    await cyclesPassed(transport, 5);
    const before = transport.identity.incarnation();
    // A brown-out the host sees no silence in: only Torque_Enable (64) tells.
    sim.bus.powerCycle(ELBOW_SERVO, 0);
    // The period is measured on the transport's clock, which stands still until the test moves it.
    t += HEALTH_PERIOD_MS;
    const c0 = transport.cycles;
    await statusWhere(transport, () => transport.identity.incarnation() !== before);
    expect(transport.cycles - c0).toBeLessThanOrEqual(2);
    await statusWhere(transport, (s) => s.faults.length === 0);
    expect(sim.bus.servos.get(ELBOW_SERVO)!.torque).toBe(true);
  });

  it("a power loss with no gap in the replies mid-motion: unknown, never judged stalled, though no periodic read comes", async () => {
    const { sim, transport, effects, config } = await rig({ healthPeriodMs: 3_600_000 });
    const before = transport.identity.incarnation();
    const ledger = IntentLedger.open(":memory:");
    const executor = composeExecutor({ config, registry: createDefaultTools(config), transport, ledger });
    try {
      const run = executor.execute(
        [{ id: "m", name: "move_joints", args: { positions: { elbow: -1.5 }, speed: 0.3 } }],
        { deadlineMs: 10_000 },
      );
      await new Promise((r) => setTimeout(r, 300));
      sim.bus.powerCycle(ELBOW_SERVO, 0);
      const [m] = await run;
      // The servo stopped short and reads still: without a torque reading taken with that
      // sample this would be "stalled"; the verdict waits for 64..70 and finds the power loss.
      expect(m!.result.status).toBe("unknown");
      expect(transport.identity.incarnation()).not.toBe(before);
      expect(effects.events.filter((e) => e.event === "motion_start")).toHaveLength(1);
    } finally {
      executor.close();
      ledger.close();
    }
  });
});
