import type { ArmKinematics } from "../kinematics/armKinematics.js";
import type { Transform } from "../kinematics/rigidTransform.js";
import type { EnvelopeItem } from "./EnvelopeItems.js";
import type { EnvelopeTest } from "./EnvelopeTest.js";

/**
 * For every test t and joint k, a bound on how fast joint k can change the
 * test's clearance (metres per radian, or per metre of a prismatic joint),
 * at `t * dof + k`. Joints upstream of both items of a pair move them
 * together and count nothing for it; a joint whose axis stays vertical
 * counts nothing for a height.
 */
export function clearanceRatesOf(
  kin: ArmKinematics,
  toFrame: Transform,
  items: readonly EnvelopeItem[],
  tests: readonly EnvelopeTest[],
): Float64Array {
  const { chain } = kin;
  const dof = chain.dof;
  const rates = new Float64Array(tests.length * dof);
  const perJoint = (k: number, ref: number, reach: number): number =>
    chain.variables[k]?.type === "prismatic" ? 1 : chain.originDistanceBound(k, ref) + reach;
  const upright = uprightJoints(kin, toFrame);
  for (const [t, test] of tests.entries()) {
    const a = items[test.item];
    if (!a) continue;
    if (test.kind === "pair") {
      const b = items[test.other];
      if (!b) continue;
      // Only the joints between the two frames move one relative to the other.
      const [near, far] = a.ref <= b.ref ? [a, b] : [b, a];
      for (let k = near.ref + 1; k <= far.ref; k++) rates[t * dof + k] = perJoint(k, far.ref, far.reach);
    } else {
      // Turning about a vertical axis moves nothing up or down.
      for (let k = 0; k <= a.ref; k++)
        rates[t * dof + k] = test.kind === "vertical" && upright[k] ? 0 : perJoint(k, a.ref, a.reach);
    }
  }
  return rates;
}

/**
 * Per joint: whether its axis is vertical in the workspace frame whatever the
 * joints do — no revolute joint upstream to tilt it, and parallel to z (a
 * pan joint on a level base). Heights do not change when it turns.
 */
function uprightJoints(kin: ArmKinematics, toFrame: Transform): boolean[] {
  const chain = kin.chain;
  chain.kernel.forward(new Float64Array(chain.dof));
  const axes = chain.kernel.jointAxis;
  let tilted = false;
  return chain.variables.map((v, k) => {
    const x = axes[3 * k] ?? 0,
      y = axes[3 * k + 1] ?? 0,
      z = axes[3 * k + 2] ?? 0;
    // The axis in the workspace frame: its z component (row 2 of the rotation).
    const zw = (toFrame[2] ?? 0) * x + (toFrame[6] ?? 0) * y + (toFrame[10] ?? 1) * z;
    const upright = !tilted && Math.abs(Math.abs(zw) - 1) < 1e-12;
    if (v.type !== "prismatic") tilted = true;
    return upright;
  });
}
