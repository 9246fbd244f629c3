import type { FastifyInstance } from "fastify";
import type { Bridge } from "../../bridge/Bridge.js";
import { envelopeDescriptionView } from "./envelopeView.js";
import type { ArmAxisView, ArmDescriptionView } from "./wire/ArmDescriptionView.js";

export type { ArmDescriptionView } from "./wire/ArmDescriptionView.js";

export function armDescriptionView(bridge: Bridge): ArmDescriptionView {
  const arm = bridge.config.arm;
  const axes: ArmAxisView[] = arm.joints.map((j) => ({ name: j.name, kind: "joint", min: j.min, max: j.max, home: j.home, unit: "rad" }));
  if (arm.gripper) axes.push({ name: arm.gripper.name, kind: "gripper", min: 0, max: 1, home: arm.gripper.home, unit: "fraction" });
  return { name: arm.name, axes, named_poses: arm.namedPoses, stale_after_ms: bridge.config.staleAfterMs, envelope: envelopeDescriptionView(bridge) };
}

export function registerArmDescriptionRoute(app: FastifyInstance, bridge: Bridge): void {
  app.get("/v1/arm", async () => armDescriptionView(bridge));
}
