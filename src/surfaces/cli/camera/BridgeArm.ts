import { ArmbridgeError } from "../../../errors.js";
import type { ArmbridgeClient } from "../../../wire/client/ArmbridgeClient.js";

/** What a running `serve` answers for one function call (POST /v1/calls), as much as camera calibration reads of it. */
interface CallAnswer {
  readonly response?: { readonly output?: Record<string, unknown>; readonly error?: Record<string, unknown> };
  readonly parts?:
    readonly { readonly inlineData?: { readonly mimeType?: string; readonly data?: string } }[] | undefined;
}

let seq = 0;

/** A field of an answer as text, for a message (objects as JSON, never "[object Object]"). */
const text = (v: unknown, fallback: string): string =>
  v === undefined || v === null ? fallback : typeof v === "string" ? v : JSON.stringify(v);

/** The arm and its cameras through a running `armbridge serve`, one function call at a time, as an operator would drive them. */
export class BridgeArm {
  constructor(readonly client: ArmbridgeClient) {}

  async call(name: string, args: Record<string, unknown>): Promise<CallAnswer> {
    const id = `camcal-${process.pid}-${Date.now()}-${seq++}`;
    const answer: { responses?: readonly CallAnswer[] } = await this.client.call("calls", {
      body: { calls: [{ id, name, args }] },
    });
    const r = answer.responses?.[0];
    if (!r?.response)
      throw new ArmbridgeError("ARMB_ERR_INTERNAL", { reason: `serve answered ${name} without a response` });
    return r;
  }

  /** Moves to joint targets and waits until the motion is done; anything else stops the calibration. */
  async moveJoints(positions: Readonly<Record<string, number>>, speed: number): Promise<void> {
    const r = await this.call("move_joints", { positions, speed });
    const out = r.response?.output ?? r.response?.error ?? {};
    if (out.status !== "done")
      throw new ArmbridgeError("ARMB_ERR_MOTION_REFUSED", {
        actionId: text(out.action_id, "none"),
        reason: `move_joints ${JSON.stringify(positions)} ended ${text(out.status, "without a status")}: ${text(out.message, "")}`,
      });
  }

  /** The tool tip by FK of the joints the arm reports (get_arm_state's end_effector), metres in the base frame. */
  async tip(): Promise<readonly [number, number, number]> {
    const r = await this.call("get_arm_state", {});
    // The call's result; the tool's own data sits under its `output`.
    const out = (r.response?.output?.output ?? {}) as Record<string, unknown>;
    if (out.stale === true)
      throw new ArmbridgeError("ARMB_ERR_TRANSPORT_NO_STATUS", { transport: "serve (the pose is stale)" });
    const p = (out.end_effector as { position?: { x?: number; y?: number; z?: number } } | null | undefined)?.position;
    if (typeof p?.x !== "number" || typeof p.y !== "number" || typeof p.z !== "number") {
      throw new ArmbridgeError("ARMB_ERR_URDF_INVALID", {
        path: "arm.urdf",
        reason:
          "serve reports no end_effector (get_arm_state): touch-off calibration needs the arm's kinematics (arm.urdf, base_link, tip_link)",
      });
    }
    return [p.x, p.y, p.z];
  }

  /** One frame of `camera`: its bytes and size. */
  async frame(
    camera: string,
  ): Promise<{ readonly bytes: Buffer; readonly width: number; readonly height: number; readonly mimeType: string }> {
    const r = await this.call("get_camera_image", { camera });
    const out = r.response?.output;
    const image = (out?.images as { width?: number; height?: number }[] | undefined)?.[0];
    const data = r.parts?.[0]?.inlineData;
    if (!out || out.status !== "done" || !image || !data?.data) {
      const e = r.response?.error ?? out ?? {};
      throw new ArmbridgeError("ARMB_ERR_CAMERA_UNAVAILABLE", {
        camera,
        source: "serve",
        reason: text(e.message, "no image in the answer"),
      });
    }
    return {
      bytes: Buffer.from(data.data, "base64"),
      width: image.width ?? 0,
      height: image.height ?? 0,
      mimeType: data.mimeType ?? "image/jpeg",
    };
  }
}
