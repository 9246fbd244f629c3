import { newActionId } from "../../src/executor/Executor.js";
import type { CallResponse } from "../../src/executor/calls/CallResult.js";
import type { MotionEnd } from "../../src/transport/Transport.js";
import type { BenchRig } from "./BenchRig.js";
import { linesFor, motionStarts, overlapsIn } from "../../firmware-sim/effectsJudge.js";

export interface E1Row {
  readonly label: string;
  readonly wallMs: number;
  /** Motions that physically started (effects log). */
  readonly effects: number;
  readonly overlaps: number;
  /** What the calls came back as, e.g. "done×4" or "ended×1 refused×3 (BUSY)". */
  readonly outcomes: string;
}

const JOINTS = ["shoulder_pan", "shoulder_lift", "elbow", "wrist_1"] as const;
/** Alternating targets, so every move really travels (well inside every joint's limits). */
const target = (i: number): number => (i % 2 === 0 ? 0.3 : -0.3);

function tally(labels: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const l of labels) counts.set(l, (counts.get(l) ?? 0) + 1);
  return [...counts].map(([k, n]) => `${k}×${n}`).join(" ");
}

function actionIdsOf(responses: readonly CallResponse[]): string[] {
  return responses.flatMap((r) =>
    "action_id" in r.result && r.result.action_id !== undefined ? [r.result.action_id] : [],
  );
}

/**
 * The seed's E1 over a real link, `--motion-time fixed:300`: four moves on one
 * joint sequentially, in parallel through armbridge, four disjoint joints in
 * parallel, and — what the locks exist for — four parallel MOVEs on one joint
 * sent straight through the transport with no executor in between.
 */
export async function runE1(rig: BenchRig): Promise<E1Row[]> {
  const { executor, transport } = rig.bridge;
  const rows: E1Row[] = [];
  const judge = (label: string, wallMs: number, ids: readonly string[], outcomes: string): void => {
    const lines = linesFor(rig.effects(), ids);
    rows.push({ label, wallMs, effects: motionStarts(lines), overlaps: overlapsIn(lines), outcomes });
  };

  // (a) sequential: each call awaited before the next is sent.
  {
    const t0 = performance.now();
    const responses: CallResponse[] = [];
    for (let i = 0; i < 4; i++) {
      responses.push(
        ...(await executor.execute([
          { id: `e1a_${i}`, name: "move_joints", args: { positions: { shoulder_pan: target(i) } } },
        ])),
      );
    }
    judge(
      "sequential, one joint",
      performance.now() - t0,
      actionIdsOf(responses),
      tally(responses.map((r) => r.result.status)),
    );
  }

  // (b) one model turn with four calls on the same joint: the lock table serialises them.
  {
    const t0 = performance.now();
    const responses = await executor.execute(
      Array.from({ length: 4 }, (_, i) => ({
        id: `e1b_${i}`,
        name: "move_joints",
        args: { positions: { shoulder_pan: target(i + 1) } },
      })),
    );
    judge(
      "parallel via armbridge, one joint",
      performance.now() - t0,
      actionIdsOf(responses),
      tally(responses.map((r) => r.result.status)),
    );
  }

  // (c) four calls on four disjoint joints: nothing to serialise. Each moves ±0.3 rad about its home,
  // so every combination of the four stays inside the workspace envelope that every motion must pass.
  {
    const home = Object.fromEntries(rig.bridge.config.arm.joints.map((j) => [j.name, j.home]));
    const t0 = performance.now();
    const responses = await executor.execute(
      JOINTS.map((joint, i) => ({
        id: `e1c_${i}`,
        name: "move_joints",
        args: { positions: { [joint]: (home[joint] ?? 0) + target(i + 1) } },
      })),
    );
    judge(
      "parallel via armbridge, 4 joints",
      performance.now() - t0,
      actionIdsOf(responses),
      tally(responses.map((r) => r.result.status)),
    );
  }

  // (d) naive baseline: four MOVEs on one joint at once, bypassing the executor's locks.
  {
    const ids = Array.from({ length: 4 }, () => newActionId());
    const t0 = performance.now();
    const ends = await Promise.all(
      ids.map((actionId, i) =>
        transport.runMotion({ actionId, targets: { shoulder_pan: target(i) }, speed: 0.5 }, AbortSignal.timeout(5000)),
      ),
    );
    judge("naive parallel, no locks, one joint", performance.now() - t0, ids, tally(ends.map(describeEnd)));
  }
  return rows;
}

function describeEnd(end: MotionEnd): string {
  switch (end.kind) {
    case "ended":
      return end.record.state;
    case "refused":
      // The device's NACK code leads its reason ("BUSY: ...").
      return `refused(${/^[A-Z_]+/.exec(end.reason)?.[0] ?? end.reason})`;
    case "wait_ended":
      return "wait_ended";
    case "link_error":
      return `link_error(${end.error.code})`;
  }
}
