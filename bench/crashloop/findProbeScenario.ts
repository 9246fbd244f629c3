import type { ArmConfig } from "../../src/config/ArmConfig.js";
import { checkMotionEnvelope } from "../../src/safety/checkMotionEnvelope.js";
import { deepestMeetingOutside } from "./deepestMeetingOutside.js";
import { PROBE_DEPTH_M } from "./findProbe.js";

/** A single-joint move (joint name → target, rad). */
export interface JointMove {
  readonly joint: string;
  readonly target: number;
}

/**
 * Where to put the arm so that a long move of one joint, halted part-way and
 * left unknown, can be met by a probe: the staged pose, the long move, and a
 * probe that the envelope allows on its own but not alongside the long move.
 */
export interface ProbeScenario {
  /** Every joint's value to stage (a move from home that passes the envelope). */
  readonly staged: Readonly<Record<string, number>>;
  /** The long move the watchdog halts. */
  readonly unsettled: JointMove;
  /** The move meant to meet it: allowed on its own once the long move halted about 60 % along; outside together with it. */
  readonly probe: JointMove;
}

/**
 * Searches (seeded, bounded by `attempts`) for a ProbeScenario from the
 * arm's home pose. Around home the default arm is folded and the envelope
 * generous, so few pairs of single-joint moves each inside the envelope leave
 * it together: a random pair of joints is moved away from home, two other
 * joints are drawn a long move and a probe, and the pair is kept when the
 * combination reaches at least twice PROBE_DEPTH_M outside while each move
 * alone stays in. Since link volumes (#20) each move alone must keep every
 * link's box inside, not only its frame, so about one draw in ten thousand
 * qualifies on the default arm (it was far more before): up to 200 000 draws,
 * about 1 s on average and 8 s at most; undefined when none was found.
 */
export function findProbeScenario(
  config: ArmConfig,
  random: () => number,
  attempts = 200_000,
): ProbeScenario | undefined {
  const joints = config.arm.joints;
  const home = Object.fromEntries(joints.map((j) => [j.name, j.home]));
  const between = (lo: number, hi: number): number => lo + random() * (hi - lo);
  const at = (pose: Record<string, number>, moves: Record<string, number>): number => {
    const still = { from: moves, to: moves };
    return deepestMeetingOutside(config, pose, still, { from: {}, to: {} })?.depthM ?? 0;
  };
  for (let i = 0; i < attempts; i++) {
    const shuffled = [...joints].sort(() => random() - 0.5);
    const [a, b] = shuffled;
    if (!a || !b) return undefined;
    const staged: Record<string, number> = { ...home };
    for (const j of shuffled.slice(0, 2 + Math.floor(random() * 2)))
      staged[j.name] = Number(between(j.min + 0.1, j.max - 0.1).toFixed(3));
    const ta = Number(between(a.min + 0.05, a.max - 0.05).toFixed(3));
    const tb = Number(between(b.min + 0.05, b.max - 0.05).toFixed(3));
    const sa = staged[a.name] ?? a.home,
      sb = staged[b.name] ?? b.home;
    if (Math.abs(ta - sa) < 0.5 || Math.abs(tb - sb) < 0.3) continue;
    if (at(staged, { [a.name]: ta, [b.name]: tb }) < 2 * PROBE_DEPTH_M) continue;
    if (!checkMotionEnvelope(config, home, staged, "move_joints").ok) continue;
    if (!checkMotionEnvelope(config, staged, { [a.name]: ta }, "move_joints").ok) continue;
    // About where the watchdog halts the long move (it runs ~1.5–2.5 s past the watchdog's 3 s).
    if (!checkMotionEnvelope(config, { ...staged, [a.name]: sa + 0.6 * (ta - sa) }, { [b.name]: tb }, "move_joints").ok)
      continue;
    return { staged, unsettled: { joint: a.name, target: ta }, probe: { joint: b.name, target: tb } };
  }
  return undefined;
}
