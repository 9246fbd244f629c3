import type { ExecutorEvent, HostedBridgePort } from "../../bridge/BridgePort.js";
import {
  ActionFrames,
  type ActionFramesLimits,
  type CallFrames,
  type FrameMoment,
} from "../../cameras/ActionFrames.js";
import { asArmbridgeError } from "../../errors.js";
import type { Logger } from "../../observability/logger.js";

/** The longest one capture round (every camera, together) may take. */
const CAPTURE_MS = 3000;

/**
 * Serve's recorder of the pictures around each motion call, for the
 * operator's unknown and approval cards: every configured camera as the call
 * is queued — before anything can be sent — and again once it settled
 * (`settled` with an action id, not a replay). A call that ended without
 * sending anything (refused, declined) keeps nothing.
 */
export class ActionFrameRecorder {
  readonly frames: ActionFrames;
  readonly #bridge: HostedBridgePort;
  readonly #log: Logger;
  readonly #unsubscribe: () => void;
  readonly #closing = new AbortController();

  constructor(
    bridge: HostedBridgePort,
    options: { readonly logger: Logger; readonly limits?: ActionFramesLimits | undefined },
  ) {
    this.#bridge = bridge;
    this.#log = options.logger;
    this.frames = new ActionFrames({ limits: options.limits, isWanted: (e) => this.#wanted(e) });
    this.#unsubscribe = bridge.cameras.names().length === 0 ? () => undefined : bridge.onEvent((e) => this.#onEvent(e));
  }

  close(): void {
    this.#closing.abort();
    this.#unsubscribe();
  }

  #onEvent(e: ExecutorEvent): void {
    switch (e.type) {
      case "queued":
        if (this.#bridge.tools.get(e.tool)?.blocking === true)
          this.#capture(this.frames.begin(e.callId, e.tool), "before");
        return;
      case "approval_requested": {
        const entry = this.frames.get(e.callId);
        if (entry) entry.approvalId = e.approval.id;
        return;
      }
      case "started": {
        const entry = this.frames.get(e.callId);
        if (entry) {
          entry.actionId = e.actionId;
          entry.sentAt = Date.now();
        }
        return;
      }
      case "settled": {
        const entry = this.frames.get(e.callId);
        if (!entry || e.result.replayed === true) return;
        if (!("action_id" in e.result) || e.result.action_id === undefined || entry.actionId === undefined)
          this.frames.drop(e.callId);
        else this.#capture(entry, "after");
        return;
      }
      case "timed_out":
      case "paced":
      case "action_resolved":
      case "approval_resolved":
      case "halted":
      case "halt_released":
      case "link_returned":
      case "presence_changed":
        return;
    }
  }

  #capture(entry: CallFrames, moment: FrameMoment): void {
    const signal = AbortSignal.any([this.#closing.signal, AbortSignal.timeout(CAPTURE_MS)]);
    const cameras = this.#bridge.cameras;
    void Promise.all(
      cameras.names().map((camera) =>
        cameras.captureForKeeping(camera, signal).then(
          (frame) => ({ camera, frame }),
          (error: unknown) => ({ camera, error: asArmbridgeError(error).message }),
        ),
      ),
    ).then((results) => {
      this.frames.keep(entry, moment, results);
      for (const r of results)
        if ("error" in r)
          this.#log.debug(
            { call_id: entry.callId, camera: r.camera, moment, err: r.error },
            "no frame for the operator's card",
          );
    });
  }

  /** An operator may still look at this call's frames: its outcome is unknown, or its approval is pending. */
  #wanted(e: CallFrames): boolean {
    if (e.actionId === undefined) return true;
    try {
      return this.#bridge.actions.get(e.actionId)?.state === "unknown";
    } catch {
      return true;
    }
  }
}
