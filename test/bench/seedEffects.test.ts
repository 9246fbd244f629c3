import { describe, expect, it } from "vitest";
import {
  classifyTimeouts,
  duplicateExecutions,
  groundTruthOf,
  motionsLongerThan,
  motionStarts,
  overlapsIn,
  quantile,
  type EffectLine,
} from "../../firmware-sim/effectsJudge.js";

// Hand-made effects logs, shaped as firmware-sim writes them.
const start = (
  id: string,
  t: number,
  joints: readonly string[] = ["shoulder_pan"],
  from = 0,
  to = 0.4,
): EffectLine => ({
  event: "motion_start",
  action_id: id,
  joints,
  t,
  from: Object.fromEntries(joints.map((j) => [j, from])),
  to: Object.fromEntries(joints.map((j) => [j, to])),
});
const end = (
  id: string,
  t: number,
  outcome: string,
  joints: readonly string[] = ["shoulder_pan"],
  from = 0,
  restedAt = 0.4,
): EffectLine => ({
  event: "motion_end",
  action_id: id,
  joints,
  t,
  outcome,
  from: Object.fromEntries(joints.map((j) => [j, from])),
  to: Object.fromEntries(joints.map((j) => [j, restedAt])),
});
const faultAtStart = (id: string, t: number): EffectLine[] => [
  start(id, t),
  end(id, t, "faulted", ["shoulder_pan"], 0, 0),
];

describe("classifyTimeouts: of the fired timeouts, which motions had succeeded anyway", () => {
  const log: EffectLine[] = [
    start("a", 0),
    end("a", 150, "reached"), // in time
    start("b", 200),
    end("b", 520, "reached"), // timed out, then reached
    ...faultAtStart("c", 600), // genuine failure
    start("d", 700), // timed out, still running when the log was read
    start("f", 900),
    end("f", 1300, "stalled"), // timed out, ended short
  ];

  it("counts fired timeouts, and as succeeded only those whose motion_end says reached", () => {
    const c = classifyTimeouts(log, [
      { actionId: "a", timedOut: false },
      { actionId: "b", timedOut: true },
      { actionId: "c", timedOut: false },
      { actionId: "d", timedOut: true },
      { actionId: "e", timedOut: true }, // never reached the arm: no line at all
      { actionId: "f", timedOut: true },
    ]);
    expect(c).toEqual({ trials: 6, fired: 4, firedButSucceeded: 1, firedAndFailed: 3 });
  });

  it("counts motions longer than a threshold by the simulator's clock, only among the given ids", () => {
    expect(motionsLongerThan(log, ["a", "b", "c", "d", "f"], 200)).toBe(3); // b 320 ms, f 400 ms, d still running
    expect(motionsLongerThan(log, ["a", "b"], 149)).toBe(2);
    expect(motionsLongerThan(log, ["a", "b"], 150)).toBe(1);
  });

  it("reads each action's ground truth from the log", () => {
    expect(["a", "c", "d", "e", "f"].map((id) => groundTruthOf(log, id))).toEqual([
      "reached",
      "ended_short",
      "still_running",
      "never_started",
      "ended_short",
    ]);
  });
});

describe("duplicateExecutions: extra runs of one logical call", () => {
  it("a naive retry whose first attempt had run counts once per extra start", () => {
    const log = [
      start("a1", 0),
      end("a1", 250, "reached"),
      start("a2", 260, ["shoulder_pan"], 0.4, 0.4),
      end("a2", 400, "reached", ["shoulder_pan"], 0.4, 0.4),
    ];
    expect(duplicateExecutions(log, [["a1", "a2"]])).toBe(1);
    expect(duplicateExecutions([...log, start("a3", 500), end("a3", 600, "reached")], [["a1", "a2", "a3"]])).toBe(2);
  });

  it("a retry refused by the device (no motion_start) is not an execution", () => {
    expect(duplicateExecutions([start("a1", 0), end("a1", 250, "reached")], [["a1", "a2"]])).toBe(0);
  });

  it("re-running after a drive fault at start (nothing moved) is legitimate, not a duplicate", () => {
    expect(
      duplicateExecutions([...faultAtStart("a1", 0), start("a2", 10), end("a2", 200, "reached")], [["a1", "a2"]]),
    ).toBe(0);
  });

  it("a fault after moving still counts as having run", () => {
    const log = [
      start("a1", 0),
      end("a1", 100, "faulted", ["shoulder_pan"], 0, 0.2),
      start("a2", 110),
      end("a2", 300, "reached"),
    ];
    expect(duplicateExecutions(log, [["a1", "a2"]])).toBe(1);
  });

  it("a second start of the same id is a duplicate; separate calls never count against each other", () => {
    expect(duplicateExecutions([start("a", 0), end("a", 100, "reached"), start("a", 200)], [["a"]])).toBe(1);
    expect(
      duplicateExecutions(
        [start("a", 0), end("a", 100, "reached"), start("b", 200), end("b", 300, "reached")],
        [["a"], ["b"]],
      ),
    ).toBe(0);
  });

  it("lines about ids outside the given calls are ignored", () => {
    expect(duplicateExecutions([start("x", 0), start("x", 10)], [["a"]])).toBe(0);
  });
});

describe("overlapsIn and motionStarts", () => {
  it("counts pairs of motions sharing an axis at the same time, not disjoint axes or hand-overs", () => {
    const overlapping = [start("a", 0), start("b", 100), end("a", 300, "reached"), end("b", 400, "reached")];
    expect(overlapsIn(overlapping)).toBe(1);
    const disjoint = [
      start("a", 0, ["elbow"]),
      start("b", 100, ["wrist_1"]),
      end("a", 300, "reached", ["elbow"]),
      end("b", 400, "reached", ["wrist_1"]),
    ];
    expect(overlapsIn(disjoint)).toBe(0);
    const handOver = [start("a", 0), end("a", 300, "reached"), start("b", 300), end("b", 600, "reached")];
    expect(overlapsIn(handOver)).toBe(0);
    // A motion with no end yet runs to the end of the log.
    expect(overlapsIn([start("a", 0), start("b", 5000)])).toBe(1);
    expect(motionStarts(overlapping)).toBe(2);
  });
});

describe("quantile", () => {
  it("is nearest-rank on unsorted samples, NaN for none", () => {
    expect(quantile([30, 10, 20, 40], 0.5)).toBe(20);
    expect(quantile([30, 10, 20, 40], 0.95)).toBe(40);
    expect(quantile([5], 0.5)).toBe(5);
    expect(quantile([], 0.5)).toBeNaN();
  });
});
