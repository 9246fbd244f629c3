import type { ArmConfig } from "../config/ArmConfig.js";
import { armKinematicsOf } from "../kinematics/armKinematics.js";
import type { Logger } from "../observability/logger.js";
import { EnvelopeModel } from "./EnvelopeModel.js";

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
  // Compiled now, so a bad link volume stops the start like a bad URDF does.
  const model = EnvelopeModel.of(config);
  const bodies = kin.bodies;
  if (bodies.unplaced.length > 0)
    log.warn(
      { links: bodies.unplaced },
      "link volumes on links no fixed or chain joint connects to the base are not checked",
    );
  if (model && model.alwaysInContact.length > 0) {
    log.warn(
      { pairs: model.alwaysInContact.map(([a, b]) => `${a}/${b}`) },
      "these link pairs touch in every configuration sampled, so they are not checked for self-collision: shrink their volumes, or list them in workspace.allowed_contacts to say so knowingly",
    );
  }
  const ws = config.workspace;
  if (!ws || (ws.keepIn === undefined && ws.floorZ === undefined && ws.keepOut.length === 0)) {
    log.warn(
      { arm: config.arm.name, urdf: kin.source },
      bodies.volumes.length > 0
        ? "NO SAFETY ENVELOPE: the arm config has no workspace.keep_in, workspace.floor_z or workspace.keep_out: motions are checked against joint limits and self-collision only — nothing keeps a link off the table, a wall or a person. See docs/kinematics.md."
        : "NO SAFETY ENVELOPE: the arm config has no workspace.keep_in or workspace.floor_z, so motions are checked against joint limits only. See docs/kinematics.md.",
    );
    return "no_envelope";
  }
  log.info(
    {
      urdf: kin.source,
      chain: `${kin.chain.baseLink} → ${kin.chain.tipLink}`,
      joints: kin.jointNames,
      workspace: ws,
      link_volumes: bodies.volumes.map((v) => `${v.link}: ${v.source}`),
      self_collision_pairs: bodies.pairs.length - (model?.alwaysInContact.length ?? 0),
      limits: { max_tool_speed_mps: config.limits.maxToolSpeedMps, motions_per_minute: config.limits.motionsPerMinute },
    },
    "safety envelope active: every motion's path is checked before it is sent",
  );
  return "checked";
}
