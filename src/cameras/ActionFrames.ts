import type { KeepableFrame } from "./Cameras.js";

/** Before the call was sent (as it was queued), or after it settled. */
export const FRAME_MOMENTS = ["before", "after"] as const;
export type FrameMoment = (typeof FRAME_MOMENTS)[number];

/** One camera's picture at one moment of a call, as kept: bytes, or (the simulated camera) how to draw them from the pose kept. */
export type KeptFrame = KeepableFrame;

/** A kept frame's bytes, drawn now (off the event loop) when only its pose was kept. */
export async function bytesOf(frame: KeptFrame): Promise<Buffer> {
  return typeof frame.bytes === "function" ? await frame.bytes() : frame.bytes;
}

/** The frames of one motion call: keyed by its call id, found by its action id or approval request id too. */
export interface CallFrames {
  readonly callId: string;
  readonly tool: string;
  actionId: string | undefined;
  approvalId: string | undefined;
  /** Epoch ms the motion was sent (the `started` event), once it was. */
  sentAt: number | undefined;
  readonly before: Map<string, KeptFrame>;
  readonly after: Map<string, KeptFrame>;
  /** Cameras that gave no frame at a moment, and why. */
  readonly missing: Map<string, string>;
}

export interface ActionFramesLimits {
  /** Calls whose frames are kept (the newest). */
  readonly maxCalls: number;
  /** Bytes of pictures kept, all calls together. */
  readonly maxBytes: number;
}

/** 32 calls, 32 MiB: a sim or webcam JPEG is 20–80 kB, so a few cameras' before and after fit many times over. */
export const DEFAULT_ACTION_FRAMES_LIMITS: ActionFramesLimits = { maxCalls: 32, maxBytes: 32 * 1024 * 1024 };

/**
 * The camera pictures around each motion call, for the operator's cards:
 * what the cameras showed as the call was queued (before anything was sent)
 * and once it settled — bytes for a real camera, the pose for the simulated
 * one (drawn on request). Kept in memory, bounded by call count and bytes; the
 * oldest go first, except that calls an operator still has to answer about
 * (`isWanted`: an unknown outcome, a pending approval) are kept while
 * anything else can go. Not kept across a restart: a card for an action
 * from before one says its frames are gone.
 */
export class ActionFrames {
  readonly #limits: ActionFramesLimits;
  readonly #isWanted: (frames: CallFrames) => boolean;
  /** By call id, oldest first (Map keeps insertion order). */
  readonly #byCall = new Map<string, CallFrames>();
  #bytes = 0;

  constructor(
    options: {
      readonly limits?: ActionFramesLimits | undefined;
      readonly isWanted?: ((frames: CallFrames) => boolean) | undefined;
    } = {},
  ) {
    this.#limits = options.limits ?? DEFAULT_ACTION_FRAMES_LIMITS;
    this.#isWanted = options.isWanted ?? (() => false);
  }

  /** A call queued: starts (or restarts, for a call id seen again) its entry. */
  begin(callId: string, tool: string): CallFrames {
    this.drop(callId);
    const entry: CallFrames = {
      callId,
      tool,
      actionId: undefined,
      approvalId: undefined,
      sentAt: undefined,
      before: new Map(),
      after: new Map(),
      missing: new Map(),
    };
    this.#byCall.set(callId, entry);
    this.#evict();
    return entry;
  }

  get(callId: string): CallFrames | undefined {
    return this.#byCall.get(callId);
  }

  byActionId(actionId: string): CallFrames | undefined {
    for (const e of this.#byCall.values()) if (e.actionId === actionId) return e;
    return undefined;
  }

  byApprovalId(approvalId: string): CallFrames | undefined {
    for (const e of this.#byCall.values()) if (e.approvalId === approvalId) return e;
    return undefined;
  }

  /** Keeps the frames a capture gave (an entry evicted or restarted meanwhile takes nothing). */
  keep(
    entry: CallFrames,
    moment: FrameMoment,
    results: readonly ({ readonly camera: string } & (
      { readonly frame: KeepableFrame } | { readonly error: string }
    ))[],
  ): void {
    if (this.#byCall.get(entry.callId) !== entry) return;
    for (const r of results) {
      if ("error" in r) {
        entry.missing.set(`${moment}:${r.camera}`, r.error);
        continue;
      }
      const old = entry[moment].get(r.camera);
      if (old) this.#bytes -= heldBytes(old);
      entry[moment].set(r.camera, r.frame);
      this.#bytes += heldBytes(r.frame);
    }
    this.#evict();
  }

  drop(callId: string): void {
    const e = this.#byCall.get(callId);
    if (!e) return;
    this.#byCall.delete(callId);
    this.#bytes -= sizeOf(e);
  }

  /** Calls and bytes kept now (for a benchmark or a test of the bounds). */
  get usage(): { readonly calls: number; readonly bytes: number } {
    return { calls: this.#byCall.size, bytes: this.#bytes };
  }

  #evict(): void {
    const over = (): boolean => this.#byCall.size > this.#limits.maxCalls || this.#bytes > this.#limits.maxBytes;
    if (!over()) return;
    const newest = [...this.#byCall.keys()].at(-1);
    // Oldest first: what nobody waits on, then anything but the newest call, and the newest only when it alone is over.
    const passes: ((e: CallFrames) => boolean)[] = [
      (e) => e.callId !== newest && !this.#isWanted(e),
      (e) => e.callId !== newest,
      () => true,
    ];
    for (const mayGo of passes) {
      for (const e of [...this.#byCall.values()]) {
        if (!over()) return;
        if (mayGo(e)) this.drop(e.callId);
      }
    }
  }
}

/** Bytes held in memory: a drawn-on-request frame holds a pose, not a picture. */
function heldBytes(f: KeptFrame): number {
  return typeof f.bytes === "function" ? 0 : f.bytes.length;
}

function sizeOf(e: CallFrames): number {
  let n = 0;
  for (const f of e.before.values()) n += heldBytes(f);
  for (const f of e.after.values()) n += heldBytes(f);
  return n;
}
