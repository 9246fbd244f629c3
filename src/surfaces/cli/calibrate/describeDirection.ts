import type { ArmConfig } from "../../../config/ArmConfig.js";
import { armKinematicsOf, jointVectorOf } from "../../../kinematics/armKinematics.js";
import { positionOf } from "../../../kinematics/rigidTransform.js";

/**
 * In words, what turning `joint` by `radians` from `pose` does by the URDF:
 * where the tool tip goes (base frame: +x forward, +y left, +z up, as REP
 * 103 has it) and which way the joint turns, seen from the end its axis
 * points to. Undefined when the config has no URDF.
 */
export function describeDirection(
  config: ArmConfig,
  joint: string,
  radians: number,
  pose: Readonly<Record<string, number>>,
): string | undefined {
  const kin = armKinematicsOf(config);
  if (!kin) return undefined;
  const k = kin.jointNames.indexOf(joint);
  const q0 = jointVectorOf(kin, pose);
  if (k < 0 || !q0) return undefined;
  const q1 = Float64Array.from(q0);
  q1[k] = (q1[k] ?? 0) + radians;
  const p0 = positionOf(kin.chain.tip(q0));
  const p1 = positionOf(kin.chain.tip(q1));
  const d = [p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]] as const;
  const words: string[] = [];
  const biggest = Math.max(...d.map(Math.abs));
  const names: readonly [string, string][] = [
    ["forward", "back"],
    ["left", "right"],
    ["up", "down"],
  ];
  if (biggest >= 0.003) {
    const moves = d.flatMap((v, i) =>
      Math.abs(v) >= biggest * 0.3
        ? [`${v > 0 ? names[i]?.[0] : names[i]?.[1]} ${(Math.abs(v) * 100).toFixed(1)} cm`]
        : [],
    );
    words.push(`the tool tip moves ${moves.join(" and ")}`);
  }
  // The joint's axis in the base frame, and the sense of a positive turn about it (right-hand rule).
  const frame = kin.chain.frames(q0).jointFrames[k];
  const a = kin.chain.axisOf(k);
  if (frame) {
    const w = [
      frame[0]! * a[0] + frame[4]! * a[1] + frame[8]! * a[2],
      frame[1]! * a[0] + frame[5]! * a[1] + frame[9]! * a[2],
      frame[2]! * a[0] + frame[6]! * a[1] + frame[10]! * a[2],
    ];
    const i = w.map(Math.abs).indexOf(Math.max(...w.map(Math.abs)));
    const from = [
      ["the front", "behind"],
      ["the left", "the right"],
      ["above", "below"],
    ][i] ?? ["one end", "the other"];
    const sense = radians > 0 ? "counter-clockwise" : "clockwise";
    words.push(`the joint turns ${sense} seen from ${(w[i] ?? 0) >= 0 ? from[0] : from[1]}`);
  }
  return words.join("; ");
}
