import { afterEach, describe, expect, it } from "vitest";
import type { MemoryEffects } from "../../firmware-sim/EffectsLog.js";
import { BUS_PROTOCOLS, type BusProtocolName } from "../../src/protocol/bus/index.js";
import { closeBusRigs, startBusRig } from "./busRig.js";

afterEach(closeBusRigs);

const ELBOW_SERVO = 3;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const motions = (effects: MemoryEffects): number => effects.events.filter((e) => e.event === "motion_start").length;

/** What each vendor's servo needs to come back, and what it must never be told. */
const RECOVERY: Readonly<Record<BusProtocolName, { readonly says: RegExp; readonly never: RegExp }>> = {
  dynamixel_2: { says: /REBOOT/, never: /no reboot instruction|Feetech/ },
  feetech_sts: { says: /no reboot instruction.*power off and on/, never: /REBOOT|e-Manual|ROBOTIS/ },
};

async function waitFor(check: () => boolean, what: string): Promise<void> {
  const until = Date.now() + 3000;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

describe.each(BUS_PROTOCOLS)("a motion on a servo that shut down, %s", (protocol) => {
  it("is blocked until recovered (never 'failed, re-running is allowed'), names the servo and its vendor's recovery, and moves nothing", async () => {
    const rig = await startBusRig(protocol, { seed: 11, open: true });
    const { sim, transport, effects } = rig;
    const executor = rig.executor();
    sim.bus.shutDownOnCue(ELBOW_SERVO);
    await waitFor(
      () => transport.servos.health().some((h) => h.axis === "elbow" && h.shut_down),
      "the bridge to see the trip",
    );

    const [first, again] = await executor.execute(
      [
        { id: "m1", name: "move_joints", args: { positions: { elbow: 0.5 } } },
        { id: "m2", name: "move_joints", args: { positions: { elbow: -0.5 } } },
      ],
      { deadlineMs: 5000 },
    );
    for (const r of [first!.result, again!.result]) {
      expect(r.status).toBe("blocked");
      if (r.status !== "blocked") continue;
      expect(r.error_code).toBe("ARMB_ERR_SERVO_TRIPPED");
      expect(r.blocked_by).toEqual([`servo:${ELBOW_SERVO}`]);
      expect(r.message).toMatch(/servo 3 \(elbow\) shut down on overload/i);
      expect(r.message).toMatch(/armbridge recover --joint elbow --operator NAME/);
      expect(r.message).toMatch(RECOVERY[protocol].says);
      expect(r.message).not.toMatch(RECOVERY[protocol].never);
      expect(r.message).not.toMatch(/re-running is allowed/);
    }
    // The arm's ground truth: nothing moved.
    expect(motions(effects)).toBe(0);

    // The console shows the same advice and offers only what exists: no recovery "in the console".
    const alarm = transport.servos
      .health()
      .find((h) => h.axis === "elbow")!
      .alerts.find((a) => a.kind === "hardware_error")!;
    expect(alarm.advice).toMatch(RECOVERY[protocol].says);
    expect(alarm.advice).not.toMatch(RECOVERY[protocol].never);
    expect(alarm.advice).not.toMatch(/console/);

    // Once an operator recovers it, the same motion runs.
    if (protocol === "feetech_sts") await sleep(400);
    const [rec] = await transport.servos.recover({ axes: ["elbow"], signal: AbortSignal.timeout(5000) });
    expect(rec?.outcome).toBe("recovered");
    const [after] = await executor.execute([{ id: "m3", name: "move_joints", args: { positions: { elbow: 0.5 } } }], {
      deadlineMs: 8000,
    });
    expect(after!.result.status).toBe("done");
    expect(motions(effects)).toBe(1);
  });
});
