import type { FastifyInstance } from "fastify";
import type { Bridge } from "../../bridge/Bridge.js";
import { envelopeDescriptionView, type EnvelopeDescriptionView } from "./envelopeView.js";

/** GET /v1/arm: what the console needs to draw the arm (limits change only with the config, so it is read once). */
export interface ArmDescriptionView {
  readonly name: string;
  /** Every axis in config order; the gripper last, on its 0 (closed) .. 1 (open) scale. */
  readonly axes: readonly {
    readonly name: string;
    readonly kind: "joint" | "gripper";
    readonly min: number;
    readonly max: number;
    readonly home: number;
    /** "rad" for joints; the gripper's scale has no unit. */
    readonly unit: "rad" | "fraction";
  }[];
  readonly named_poses: Readonly<Record<string, Readonly<Record<string, number>>>>;
  /** A status older than this is stale (the config's stale_after_ms). */
  readonly stale_after_ms: number;
  /** The safety envelope's parts (keep-in, floor, keep-out zones, link volumes, unchecked pairs, limits); null without kinematics. */
  readonly envelope: EnvelopeDescriptionView | null;
}

export function armDescriptionView(bridge: Bridge): ArmDescriptionView {
  const arm = bridge.config.arm;
  const axes: ArmDescriptionView["axes"][number][] = arm.joints.map((j) => ({ name: j.name, kind: "joint", min: j.min, max: j.max, home: j.home, unit: "rad" }));
  if (arm.gripper) axes.push({ name: arm.gripper.name, kind: "gripper", min: 0, max: 1, home: arm.gripper.home, unit: "fraction" });
  return { name: arm.name, axes, named_poses: arm.namedPoses, stale_after_ms: bridge.config.staleAfterMs, envelope: envelopeDescriptionView(bridge) };
}

export function registerArmDescriptionRoute(app: FastifyInstance, bridge: Bridge): void {
  app.get("/v1/arm", async () => armDescriptionView(bridge));
}
