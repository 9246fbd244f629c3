import type { z } from "zod";
import type { ArmConfigFileValue } from "./armConfigFile.js";
import { checkServoBus } from "./checkServoBus.js";
import { checkArm, checkArmUrdf, checkAxesNamed, urdfKeyOf } from "./sections/arm.js";
import { checkCameras } from "./sections/cameras.js";
import { checkScene } from "./sections/simulator.js";

const NEEDS_KINEMATICS = "set arm.urdf (or arm.robot_description), arm.base_link and arm.tip_link";

/**
 * The checks that span sections, in one order: each section's own first,
 * then what one section asks of another (an envelope, link volumes, a tool
 * speed limit and MoveIt need the arm's URDF; approval rules and controllers
 * name the arm's axes).
 */
export function checkArmConfig(cfg: ArmConfigFileValue, ctx: z.RefinementCtx): void {
  checkCameras(cfg.cameras, ctx);
  checkScene(cfg.scene, ctx);
  checkArm(cfg.arm, ctx);
  if (cfg.bus) checkServoBus(cfg.bus.protocol, cfg.arm, ctx);
  checkArmUrdf(cfg.arm, ctx);
  checkNeedsKinematics(cfg, ctx);
  for (const [tool, rule] of Object.entries(cfg.approval)) {
    if (tool === "stop" && rule !== "never") {
      const message = "stop is never gated: stopping must always be possible";
      ctx.addIssue({ code: "custom", path: ["approval", tool], message });
    }
    if (typeof rule === "object") checkAxesNamed(cfg.arm, rule.joints, ["approval", tool, "joints"], ctx);
  }
  for (const [i, c] of cfg.arm.controllers.entries()) {
    checkAxesNamed(cfg.arm, c.joints, ["arm", "controllers", i, "joints"], ctx);
  }
}

function checkNeedsKinematics(cfg: ArmConfigFileValue, ctx: z.RefinementCtx): void {
  const urdfKey = urdfKeyOf(cfg.arm);
  const missing = urdfKey === undefined;
  if (cfg.workspace && missing) {
    const message = `an envelope needs the arm's kinematics: ${NEEDS_KINEMATICS}`;
    ctx.addIssue({ code: "custom", path: ["workspace"], message });
  }
  if (Object.keys(cfg.link_volumes).length > 0 && missing) {
    const message = `link volumes belong to the links of the arm's URDF: ${NEEDS_KINEMATICS}`;
    ctx.addIssue({ code: "custom", path: ["link_volumes"], message });
  }
  if (cfg.limits.max_tool_speed_mps !== undefined && missing) {
    const message = `the tool's speed is computed from the arm's kinematics: ${NEEDS_KINEMATICS}`;
    ctx.addIssue({ code: "custom", path: ["limits", "max_tool_speed_mps"], message });
  }
  if (cfg.kinematics === "moveit") {
    if (cfg.moveit === undefined) {
      const message = "kinematics: moveit needs moveit: {group: <planning group>}";
      ctx.addIssue({ code: "custom", path: ["moveit"], message });
    }
    if (missing) {
      const message =
        "kinematics: moveit still needs the arm's URDF (arm.urdf or arm.robot_description) for the envelope and the end-effector pose";
      ctx.addIssue({ code: "custom", path: ["kinematics"], message });
    }
  }
}
