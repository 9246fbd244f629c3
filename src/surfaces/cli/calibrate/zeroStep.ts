import { ArmbridgeError } from "../../../errors.js";
import { readPositions, torqueOff } from "../../../transport/bus/setup/handCalibration.js";
import type { CalibrationRun } from "./CalibrationRun.js";

/** Counts two reads of a pose held by hand may differ by: a hand is not a vice. */
const STEADY_COUNTS = 8;

/**
 * Torque off; the operator holds the arm in its zero pose (each joint at
 * the URDF's 0, the gripper closed); each servo's count there is its
 * centre (the gripper's: closed).
 */
export async function zeroStep(run: CalibrationRun): Promise<void> {
  const bus = run.bus("zero");
  for (const id of run.ids()) await torqueOff(bus, id, run.signal);
  run.say("zero: torque is off on every servo — support the arm, it can fall.", {
    event: "step",
    step: "zero",
    state: "torque_off",
  });
  await run.waitForEnter(
    "zero",
    "zero: hold the arm in its zero pose — every joint where the URDF puts 0 (docs/bring-up.md, step 3, says what that is per arm), the gripper closed — and keep it still.",
  );
  const first = await readPositions(bus, run.ids(), run.signal);
  await new Promise((r) => setTimeout(r, 100));
  const second = await readPositions(bus, run.ids(), run.signal);
  const silent = run.axes.filter((a) => second.get(a.id) === undefined);
  if (silent.length > 0)
    throw new ArmbridgeError("ARMB_ERR_CALIBRATION_STEP", {
      step: "zero",
      reason: `no answer from ${silent.map((a) => `servo ${a.id} (${a.name})`).join(", ")}`,
    });
  const moving = run.axes.filter((a) => Math.abs((second.get(a.id) ?? 0) - (first.get(a.id) ?? 0)) > STEADY_COUNTS);
  if (moving.length > 0)
    throw new ArmbridgeError("ARMB_ERR_CALIBRATION_STEP", {
      step: "zero",
      reason: `${moving.map((a) => a.name).join(", ")} moved while the pose was read; hold the arm still and run the step again`,
    });
  for (const a of run.axes) {
    const count = second.get(a.id) ?? 0;
    const existing = run.axis(a.name);
    if (existing?.kind === "joint") {
      run.setAxis(a.name, { ...existing, center: count });
      const cpr = existing.counts_per_rev;
      if (count < cpr / 16 || count > cpr - cpr / 16) {
        run.say(
          `zero: warning: ${a.name} reads ${count} at its zero pose, near the encoder's 0/${cpr - 1} seam; if its travel crosses the seam the range step will refuse it (set the servo's Homing_Offset with the vendor tool, or re-seat the horn)`,
          { event: "warning", step: "zero", joint: a.name, count },
        );
      }
    } else if (existing?.kind === "gripper") {
      run.setAxis(a.name, { ...existing, closed: count });
    }
  }
  run.emit({ event: "zero", counts: Object.fromEntries(run.axes.map((a) => [a.name, second.get(a.id)])) });
  run.saveStep("zero");
}
