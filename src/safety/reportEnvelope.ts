import type { ArmConfig } from "../config/ArmConfig.js";
import { armKinematicsOf } from "../kinematics/armKinematics.js";
import type { Logger } from "../observability/logger.js";

/**
 * At start: load the kinematics (a bad URDF stops the bridge here, not at the
 * first Cartesian call) and say loudly when motions are not checked against
 * any envelope. Returns what was found, for the caller's own report.
 */
export function reportEnvelope(config: ArmConfig, logger: Logger): "checked" | "no_kinematics" | "no_envelope" {
  const log = logger.child({ component: "envelope" });
  const kin = armKinematicsOf(config);
  if (!kin) {
    log.warn(
      { arm: config.arm.name },
      "NO SAFETY ENVELOPE: the arm config has no arm.urdf, so motions are checked against joint limits only — nothing stops a link from reaching the table, a wall or a person. See docs/kinematics.md.",
    );
    return "no_kinematics";
  }
  const ws = config.workspace;
  if (!ws || (ws.keepIn === undefined && ws.floorZ === undefined)) {
    log.warn(
      { arm: config.arm.name, urdf: kin.source },
      "NO SAFETY ENVELOPE: the arm config has no workspace.keep_in or workspace.floor_z, so motions are checked against joint limits only. See docs/kinematics.md.",
    );
    return "no_envelope";
  }
  log.info({ urdf: kin.source, chain: `${kin.chain.baseLink} → ${kin.chain.tipLink}`, joints: kin.jointNames, workspace: ws }, "safety envelope active: every motion's path is checked before it is sent");
  return "checked";
}
