import type { FastifyInstance } from "fastify";
import type { HostedBridgePort } from "../../bridge/BridgePort.js";
import { actuatorsOf } from "../../config/actuators.js";
import { envelopeDescriptionView } from "./envelopeView.js";
import type { ArmAxisView, ArmDescriptionView } from "../../wire/ArmDescriptionView.js";
import { serveRoute } from "./serveRoute.js";

export type { ArmDescriptionView } from "../../wire/ArmDescriptionView.js";

export function armDescriptionView(bridge: HostedBridgePort): ArmDescriptionView {
  const arm = bridge.config.arm;
  const axes: ArmAxisView[] = actuatorsOf(bridge.config).map((a) => ({
    name: a.name,
    kind: a.kind,
    min: a.min,
    max: a.max,
    home: a.home,
    unit: a.kind === "joint" ? "rad" : "fraction",
    tolerance: a.tolerance,
  }));
  return {
    name: arm.name,
    axes,
    named_poses: arm.namedPoses,
    stale_after_ms: bridge.config.staleAfterMs,
    envelope: envelopeDescriptionView(bridge),
  };
}

export function registerArmDescriptionRoute(app: FastifyInstance, bridge: HostedBridgePort): void {
  serveRoute(app, "arm", async () => armDescriptionView(bridge));
}
