import type { FastifyInstance, FastifyReply } from "fastify";
import { z } from "zod";
import { bytesOf, FRAME_MOMENTS, type CallFrames, type FrameMoment } from "../../cameras/ActionFrames.js";
import { MIME_TYPES } from "../../imaging/encodeImage.js";
import { ArmbridgeError } from "../../errors.js";
import type { ActionFrameRecorder } from "./ActionFrameRecorder.js";
import { parseInput } from "./parseInput.js";
import { serveRoute } from "./serveRoute.js";
import { pathOf, ROUTES } from "../../wire/routes.js";
import { FRAME_HEADERS, type CardFrameView, type CardFramesList } from "../../wire/CameraView.js";

const idParams = z.strictObject({ id: z.string().min(1).max(200) });
const frameParams = z.strictObject({ id: z.string().min(1).max(200), which: z.enum(FRAME_MOMENTS) });
const approvalFrameParams = z.strictObject({ id: z.string().min(1).max(200), which: z.literal("before") });
const frameQuery = z.strictObject({ camera: z.string().min(1).max(200).optional() });

/**
 * The pictures around a motion call, for the operator's cards (serve keeps
 * them: ActionFrameRecorder). `GET /v1/actions/:id/frames` lists what is kept
 * of an action, `GET /v1/actions/:id/frames/:which[?camera=]` (before |
 * after) is one picture's bytes; an approval request, not sent yet, has its
 * `before` under `/v1/approvals/:id/frames`. Without `camera` the first
 * configured camera with a picture answers.
 */
export function registerCardFramesRoutes(app: FastifyInstance, recorder: ActionFrameRecorder): void {
  const frames = recorder.frames;

  serveRoute(app, "actionFrames", async (request): Promise<CardFramesList> => {
    const { id } = parseInput(idParams, request.params, "params");
    return listOf(found(frames.byActionId(id), `action ${id}`), (which) => pathOf(ROUTES.actionFrame, { id, which }));
  });

  serveRoute(app, "actionFrame", async (request, reply) => {
    const { id, which } = parseInput(frameParams, request.params, "params");
    const { camera } = parseInput(frameQuery, request.query, "query");
    return sendFrame(reply, found(frames.byActionId(id), `action ${id}`, which), which, camera, `action ${id}`);
  });

  serveRoute(app, "approvalFrames", async (request): Promise<CardFramesList> => {
    const { id } = parseInput(idParams, request.params, "params");
    return listOf(found(frames.byApprovalId(id), `approval request ${id}`), (which) =>
      pathOf(ROUTES.approvalFrame, { id, which }),
    );
  });

  serveRoute(app, "approvalFrame", async (request, reply) => {
    const { id, which } = parseInput(approvalFrameParams, request.params, "params");
    const { camera } = parseInput(frameQuery, request.query, "query");
    return sendFrame(
      reply,
      found(frames.byApprovalId(id), `approval request ${id}`, which),
      which,
      camera,
      `approval request ${id}`,
    );
  });
}

function found(entry: CallFrames | undefined, subject: string, which: FrameMoment | "any" = "any"): CallFrames {
  if (entry) return entry;
  throw new ArmbridgeError("ARMB_ERR_FRAME_NOT_KEPT", {
    which: which === "any" ? "camera" : which,
    subject,
    camera: "",
    reason:
      "serve keeps the frames of the newest motion calls it ran since it started (no camera configured, a call from before a restart, or one long gone keeps none)",
  });
}

/** `frameUrl` is where one of the listed pictures is served (its camera follows as `?camera=`). */
function listOf(e: CallFrames, frameUrl: (which: FrameMoment) => string): CardFramesList {
  const views: CardFrameView[] = [];
  for (const which of FRAME_MOMENTS) {
    for (const f of e[which].values()) {
      views.push({
        which,
        camera: f.camera,
        format: f.format,
        width: f.width,
        height: f.height,
        captured_at: f.capturedAtMs,
        clock: f.clock,
        stale: f.stale,
        url: `${frameUrl(which)}?camera=${encodeURIComponent(f.camera)}`,
      });
    }
  }
  return {
    call_id: e.callId,
    action_id: e.actionId ?? null,
    approval_id: e.approvalId ?? null,
    sent_at: e.sentAt ?? null,
    frames: views,
    missing: Object.fromEntries(e.missing),
  };
}

async function sendFrame(
  reply: FastifyReply,
  e: CallFrames,
  which: FrameMoment,
  camera: string | undefined,
  subject: string,
): Promise<FastifyReply> {
  const kept = e[which];
  const frame = camera === undefined ? kept.values().next().value : kept.get(camera);
  if (!frame) {
    const why = camera !== undefined ? e.missing.get(`${which}:${camera}`) : undefined;
    throw new ArmbridgeError("ARMB_ERR_FRAME_NOT_KEPT", {
      which,
      subject,
      camera: camera === undefined ? "" : ` from camera ${camera}`,
      reason:
        why ??
        (which === "after" && e.actionId !== undefined
          ? "it is taken once the motion settled, and this one has not yet"
          : `kept: ${[...kept.keys()].join(", ") || "none"}`),
    });
  }
  return reply
    .header("content-type", MIME_TYPES[frame.format])
    .header("cache-control", "no-store")
    .header(FRAME_HEADERS.capturedAt, String(frame.capturedAtMs))
    .header(FRAME_HEADERS.stale, String(frame.stale))
    .send(await bytesOf(frame));
}
