import type { ArmRecovery } from "../../../src/transport/Transport.js";
import { FakeArm } from "./FakeArm.js";

/** The recovery steps a ReflexArm plans: franka_hardware's, as the ROS transport words them. */
export const RECOVERY_STEPS = [
  { step: "error_recovery", does: "clear the robot's error: /action_server/error_recovery" },
  { step: "switch_controller", does: "activate fr3_arm_controller, joint_state_broadcaster" },
];

/** A FakeArm with an arm recovery, counting every run. */
export class ReflexArm extends FakeArm {
  runs = 0;
  readonly armRecovery: ArmRecovery = {
    plan: () => RECOVERY_STEPS,
    run: () => {
      this.runs++;
      return Promise.resolve(RECOVERY_STEPS.map((s) => ({ ...s, outcome: "done" as const })));
    },
  };
}
