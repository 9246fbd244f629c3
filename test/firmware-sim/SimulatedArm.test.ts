import { describe, expect, it } from "vitest";
import { AXES, axisIndex, makeArm } from "./simulatedArmHarness.js";

const PAN = axisIndex("shoulder_pan");
const ELBOW = axisIndex("elbow");
const GRIPPER = axisIndex("gripper");

describe("SimulatedArm physics", () => {
  it("follows a trapezoidal profile within the axis limits and lands exactly on target", () => {
    const { arm, clock, effects } = makeArm();
    const reply = arm.move({ actionId: "a1", speed: 1, durationMs: 0, targets: [{ axis: PAN, position: 1 }] });
    expect(reply).toMatchObject({ kind: "action", record: { state: "executing", moved: true } });
    const pan = AXES[PAN]!;
    let last = 0;
    let lastV = 0;
    let peak = 0;
    // 1 rad at 2 rad/s, 6 rad/s²: 1/2 + 2/6 s = 833.3 ms.
    for (let t = 0; t < 820; t += 10) {
      clock.advance(10);
      const s = arm.samples()[PAN]!;
      expect(s.moving).toBe(true);
      expect(s.position).toBeGreaterThanOrEqual(last);
      expect(Math.abs(s.velocity)).toBeLessThanOrEqual(pan.maxVelocity + 1e-9);
      expect(Math.abs(s.velocity - lastV) / 0.01).toBeLessThanOrEqual(pan.maxAcceleration + 1e-6);
      peak = Math.max(peak, s.velocity);
      last = s.position;
      lastV = s.velocity;
    }
    expect(peak).toBeCloseTo(pan.maxVelocity, 6);
    clock.advance(20);
    expect(arm.samples()[PAN]).toEqual({ position: 1, velocity: 0, moving: false, stalled: false });
    expect(arm.query("a1", false).record).toEqual({ actionId: "a1", state: "reached", moved: true });
    expect(effects.events.map((e) => e.event)).toEqual(["motion_start", "motion_end"]);
    expect(effects.events[1]).toMatchObject({
      action_id: "a1",
      joints: ["shoulder_pan"],
      from: { shoulder_pan: 0 },
      to: { shoulder_pan: 1 },
      outcome: "reached",
    });
  });

  it("scales speed and honours a requested duration and an imposed motion time", () => {
    const slow = makeArm();
    slow.arm.move({ actionId: "s", speed: 0.5, durationMs: 0, targets: [{ axis: PAN, position: 1 }] });
    slow.clock.advance(1000);
    // 1 rad at 1 rad/s, 6 rad/s²: 1 + 1/6 s.
    expect(slow.arm.query("s", false).record.state).toBe("executing");
    slow.clock.advance(170);
    expect(slow.arm.query("s", false).record.state).toBe("reached");

    const timed = makeArm();
    timed.arm.move({ actionId: "d", speed: 1, durationMs: 3000, targets: [{ axis: PAN, position: 0.1 }] });
    timed.clock.advance(2990);
    expect(timed.arm.query("d", false).record.state).toBe("executing");
    timed.clock.advance(10);
    expect(timed.arm.query("d", false).record.state).toBe("reached");

    const fixed = makeArm({ motionTime: { kind: "fixed", ms: 300 } });
    fixed.arm.move({ actionId: "f", speed: 1, durationMs: 0, targets: [{ axis: PAN, position: 3 }] });
    fixed.clock.advance(299);
    expect(fixed.arm.samples()[PAN]!.moving).toBe(true);
    fixed.clock.advance(1);
    expect(fixed.arm.samples()[PAN]!.position).toBe(3);
  });

  it("moves the gripper on 0..1 and refuses targets outside the limits, recording them rejected", () => {
    const { arm, clock, effects } = makeArm();
    expect(
      arm.move({ actionId: "g", speed: 1, durationMs: 0, targets: [{ axis: GRIPPER, position: 0 }] }),
    ).toMatchObject({ kind: "action" });
    clock.advance(5000);
    expect(arm.samples()[GRIPPER]!.position).toBe(0);
    expect(
      arm.move({ actionId: "bad", speed: 1, durationMs: 0, targets: [{ axis: GRIPPER, position: 1.5 }] }),
    ).toMatchObject({ kind: "nack", code: "OUT_OF_LIMITS" });
    expect(arm.move({ actionId: "nope", speed: 1, durationMs: 0, targets: [{ axis: 99, position: 0 }] })).toMatchObject(
      { kind: "nack", code: "BAD_AXIS" },
    );
    expect(
      arm.move({ actionId: "fast", speed: 1.5, durationMs: 0, targets: [{ axis: PAN, position: 0 }] }),
    ).toMatchObject({ kind: "nack", code: "BAD_FRAME" });
    expect(arm.query("bad", false).record).toEqual({ actionId: "bad", state: "rejected", moved: false });
    expect(effects.events.filter((e) => e.event === "motion_start")).toHaveLength(1);
  });

  it("accepts a target at a limit sent as float32", () => {
    const { arm } = makeArm();
    expect(
      arm.move({ actionId: "edge", speed: 1, durationMs: 0, targets: [{ axis: PAN, position: Math.fround(3.14) }] }),
    ).toMatchObject({ kind: "action" });
  });
});

describe("SimulatedArm idempotency and concurrency", () => {
  it("never executes an action id twice, answering with its record and logging duplicate_refused", () => {
    const { arm, clock, effects } = makeArm();
    const move = { actionId: "dup", speed: 1, durationMs: 0, targets: [{ axis: PAN, position: 0.5 }] };
    arm.move(move);
    expect(arm.move(move)).toMatchObject({ kind: "action", record: { actionId: "dup", state: "executing" } });
    clock.advance(5000);
    expect(arm.move({ ...move, targets: [{ axis: PAN, position: -1 }] })).toMatchObject({
      kind: "action",
      record: { state: "reached", moved: true },
    });
    clock.advance(5000);
    expect(arm.samples()[PAN]!.position).toBe(0.5);
    expect(effects.events.filter((e) => e.event === "motion_start")).toHaveLength(1);
    expect(effects.events.filter((e) => e.event === "duplicate_refused").map((e) => e.action_id)).toEqual([
      "dup",
      "dup",
    ]);
  });

  it("runs disjoint motions together and refuses a second motion on a busy axis", () => {
    const { arm, clock, effects } = makeArm();
    arm.move({ actionId: "m1", speed: 1, durationMs: 0, targets: [{ axis: PAN, position: 1 }] });
    expect(
      arm.move({ actionId: "m2", speed: 1, durationMs: 0, targets: [{ axis: ELBOW, position: 0 }] }),
    ).toMatchObject({ kind: "action" });
    expect(
      arm.move({
        actionId: "m3",
        speed: 1,
        durationMs: 0,
        targets: [
          { axis: PAN, position: -1 },
          { axis: GRIPPER, position: 0 },
        ],
      }),
    ).toMatchObject({
      kind: "nack",
      code: "BUSY",
    });
    expect(arm.activeActionIds().sort()).toEqual(["m1", "m2"]);
    clock.advance(5000);
    expect(arm.query("m3", false).record).toEqual({ actionId: "m3", state: "rejected", moved: false });
    expect(
      effects.events.filter((e) => e.event === "motion_end").map((e) => [e.action_id, "outcome" in e ? e.outcome : ""]),
    ).toEqual([
      ["m1", "reached"],
      ["m2", "reached"],
    ]);
  });

  it("voids an unknown id on query so a late MOVE with it is refused VOIDED without motion", () => {
    const { arm, effects } = makeArm();
    expect(arm.query("late", false).record).toEqual({ actionId: "late", state: "unknown", moved: undefined });
    expect(arm.query("late", true).record).toEqual({ actionId: "late", state: "voided", moved: false });
    expect(
      arm.move({ actionId: "late", speed: 1, durationMs: 0, targets: [{ axis: PAN, position: 1 }] }),
    ).toMatchObject({ kind: "nack", code: "VOIDED" });
    expect(arm.activeActionIds()).toEqual([]);
    expect(effects.events.map((e) => e.event)).toEqual(["voided", "duplicate_refused"]);
  });

  it("voidIfUnknown does not touch a known action", () => {
    const { arm } = makeArm();
    arm.move({ actionId: "known", speed: 1, durationMs: 0, targets: [{ axis: PAN, position: 1 }] });
    expect(arm.query("known", true).record.state).toBe("executing");
  });
});

describe("SimulatedArm stopping", () => {
  it("brakes a stopped motion and logs where the axes really came to rest", () => {
    const { arm, clock, effects } = makeArm();
    arm.move({ actionId: "st", speed: 1, durationMs: 0, targets: [{ axis: PAN, position: 2 }] });
    clock.advance(500);
    const at = arm.samples()[PAN]!;
    arm.stop([PAN], "test stop");
    expect(arm.query("st", false).record.state).toBe("executing");
    clock.advance(1000);
    const end = effects.events.find((e) => e.event === "motion_end");
    // Braking from v at 6 rad/s² covers v²/12.
    const expected = at.position + (at.velocity * at.velocity) / 12;
    expect(end).toMatchObject({ action_id: "st", outcome: "stopped", detail: "test stop" });
    expect((end as { to: Record<string, number> }).to.shoulder_pan).toBeCloseTo(expected, 9);
    expect(arm.samples()[PAN]!.position).toBeCloseTo(expected, 9);
    expect(arm.query("st", false).record).toEqual({ actionId: "st", state: "stopped", moved: true });
  });

  it("a motion stopped before it moved reports moved=false", () => {
    const { arm, effects } = makeArm();
    arm.move({ actionId: "s0", speed: 1, durationMs: 0, targets: [{ axis: PAN, position: 2 }] });
    arm.stop("all", "at once");
    expect(arm.query("s0", false).record).toEqual({ actionId: "s0", state: "stopped", moved: false });
    expect(effects.events.at(-1)).toMatchObject({ event: "motion_end", outcome: "stopped", to: { shoulder_pan: 0 } });
  });
});

describe("SimulatedArm seeded faults", () => {
  it("genuine failures never move anything and are reproducible from the seed", () => {
    const run = () => {
      const { arm, clock, effects } = makeArm({ rates: { failRate: 1 }, seed: 7 });
      const replies = Array.from({ length: 8 }, (_, i) => {
        const r = arm.move({ actionId: `f${i}`, speed: 1, durationMs: 0, targets: [{ axis: PAN, position: 1 }] });
        clock.advance(2000);
        return r.kind === "nack" ? `nack:${r.code}` : `action:${r.record.state}:${String(r.record.moved)}`;
      });
      return { replies, pan: arm.samples()[PAN]!.position, effects: effects.events };
    };
    const a = run();
    expect(a.replies).toEqual(run().replies);
    expect(new Set(a.replies)).toEqual(new Set(["nack:FAULTED", "action:faulted:false"]));
    expect(a.pan).toBe(0);
    for (const e of a.effects)
      if (e.event === "motion_end") expect(e).toMatchObject({ outcome: "faulted", to: e.from });
  });

  it("a stall ends the motion part-way with the stalled axis flagged", () => {
    const { arm, clock, effects } = makeArm({ rates: { stallRate: 1 } });
    arm.move({ actionId: "stall", speed: 1, durationMs: 0, targets: [{ axis: PAN, position: 1 }] });
    clock.advance(2000);
    const end = effects.events.find((e) => e.event === "motion_end") as { outcome: string; to: Record<string, number> };
    expect(end.outcome).toBe("stalled");
    expect(end.to.shoulder_pan).toBeGreaterThan(0);
    expect(end.to.shoulder_pan).toBeLessThan(1);
    expect(arm.samples()[PAN]!.stalled).toBe(true);
    expect(arm.faults()).toEqual(["stall:shoulder_pan"]);
    arm.stop([PAN], "reset");
    expect(arm.faults()).toEqual([]);
  });

  it("a reboot mid-motion stops it where it is, forgets every action and changes bootId", () => {
    const { arm, clock, effects } = makeArm({ rates: { rebootRate: 1 } });
    const before = arm.bootId;
    arm.move({ actionId: "rb", speed: 1, durationMs: 0, targets: [{ axis: PAN, position: 1 }] });
    clock.advance(2000);
    expect(arm.bootId).not.toBe(before);
    expect(effects.events.map((e) => e.event)).toEqual(["motion_start", "motion_end", "reboot"]);
    const end = effects.events[1] as { outcome: string; to: Record<string, number> };
    expect(end.outcome).toBe("stopped");
    expect(end.to.shoulder_pan).toBeGreaterThan(0);
    expect(end.to.shoulder_pan).toBeLessThan(1);
    expect(arm.query("rb", false).record).toEqual({ actionId: "rb", state: "unknown", moved: undefined });
    expect(clock.pendingTimers).toBe(0);
  });

  it("log-normal motion times are reproducible from the seed", () => {
    const durations = (seed: number): number[] => {
      const { arm, clock } = makeArm({ seed, motionTime: { kind: "lognormal", medianMs: 150, sigma: 0.5 } });
      const out: number[] = [];
      for (let i = 0; i < 5; i++) {
        const start = clock.now();
        arm.move({ actionId: `l${i}`, speed: 1, durationMs: 0, targets: [{ axis: PAN, position: i % 2 }] });
        while (arm.activeActionIds().length > 0) clock.advance(1);
        out.push(clock.now() - start);
      }
      return out;
    };
    const times = durations(3);
    expect(durations(3)).toEqual(times);
    expect(durations(4)).not.toEqual(times);
    expect(new Set(times).size).toBeGreaterThan(1);
  });
});
