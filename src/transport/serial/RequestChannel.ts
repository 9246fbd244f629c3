import type { Logger } from "pino";
import { ArmbridgeError, asArmbridgeError } from "../../errors.js";
import type { FrameCodec } from "./FrameCodec.js";
import type { DeviceReply, HostRequest } from "./wireTypes.js";

/** How one request ended. Never an exception: every caller must handle each kind. */
export type RequestOutcome =
  /** The device answered (HELLO, ACK, NACK or ACTION naming our seq). */
  | { readonly kind: "reply"; readonly reply: DeviceReply; readonly sends: number }
  /** No answer after the first send and every resend: ARMB_ERR_DEVICE_TIMEOUT. */
  | { readonly kind: "no_reply"; readonly error: ArmbridgeError; readonly sends: number }
  /** The caller's signal fired; nothing more is sent for this request. */
  | { readonly kind: "aborted"; readonly sends: number }
  /** The link went down, the device rebooted or the transport closed: resending would be unsafe or pointless. */
  | { readonly kind: "interrupted"; readonly error: ArmbridgeError; readonly sends: number }
  /** The message could not be encoded (a bad value); nothing was sent. */
  | { readonly kind: "unsendable"; readonly error: ArmbridgeError; readonly sends: 0 };

export interface RequestOptions {
  readonly signal: AbortSignal;
  /** Resends of the same bytes after an ACK timeout (0 = send once). */
  readonly maxResends: number;
  /** How long to wait for the reply to each send. */
  readonly ackTimeoutMs: number;
  /** For log lines about an action. */
  readonly actionId?: string;
  /**
   * Asked when a resend is due; while it answers false the resend waits
   * another ACK timeout (not counted as a send). The transport uses it to
   * re-send a MOVE only once the device has shown, since the last send, that
   * it has not rebooted: a fresh device would run a re-sent MOVE as new.
   */
  readonly mayResend?: () => boolean;
}

interface Pending {
  readonly op: HostRequest["op"];
  readonly settle: (outcome: RequestOutcome) => void;
  sends: number;
}

/** Sequence numbers are u16 on the wire; 0 is never used so a zeroed header cannot match. */
const SEQ_MAX = 0xffff;

/**
 * Request/reply matching with link-level resend. Each request is encoded
 * once; a resend writes the very same bytes (same seq, same action id), so
 * the device answers it from its reply cache and never executes a MOVE twice.
 * Nothing here ever creates a new request on its own.
 */
export class RequestChannel {
  private lastSeq = 0;
  private readonly pending = new Map<number, Pending>();
  private resent = 0;
  private unmatched = 0;

  constructor(
    private readonly codec: FrameCodec,
    private readonly write: (bytes: Uint8Array) => void,
    private readonly logger: Logger,
  ) {}

  get pendingCount(): number {
    return this.pending.size;
  }

  /** Frames re-sent after an ACK timeout, and replies nobody waited for, since construction. */
  get counters(): { readonly resentFrames: number; readonly unmatchedReplies: number } {
    return { resentFrames: this.resent, unmatchedReplies: this.unmatched };
  }

  async request(message: HostRequest, options: RequestOptions): Promise<RequestOutcome> {
    if (options.signal.aborted) return { kind: "aborted", sends: 0 };
    const seq = this.allocateSeq();
    let bytes: Uint8Array;
    try {
      bytes = this.codec.encodeFrame({ ...message, seq });
    } catch (error) {
      return { kind: "unsendable", error: asArmbridgeError(error), sends: 0 };
    }
    const log = this.logger.child({
      seq,
      op: message.op,
      ...(options.actionId === undefined ? {} : { action_id: options.actionId }),
    });

    return new Promise<RequestOutcome>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const entry: Pending = {
        op: message.op,
        sends: 0,
        settle: (outcome) => {
          // Every way out goes through here, so the timer, the abort listener
          // and the pending entry are always released together.
          if (timer !== undefined) clearTimeout(timer);
          options.signal.removeEventListener("abort", onAbort);
          if (this.pending.get(seq) === entry) this.pending.delete(seq);
          resolve(outcome);
        },
      };
      const onAbort = (): void => entry.settle({ kind: "aborted", sends: entry.sends });
      const send = (): void => {
        entry.sends += 1;
        if (entry.sends > 1) this.resent += 1;
        if (entry.sends > 1) log.debug({ send: entry.sends }, "no reply in time: re-sending the same frame");
        this.write(bytes);
        timer = setTimeout(onTimeout, options.ackTimeoutMs);
      };
      const onTimeout = (): void => {
        timer = undefined;
        if (entry.sends <= options.maxResends) {
          if (options.mayResend && !options.mayResend()) {
            timer = setTimeout(onTimeout, options.ackTimeoutMs);
            return;
          }
          send();
          return;
        }
        log.warn({ sends: entry.sends }, "no reply after every resend");
        entry.settle({
          kind: "no_reply",
          sends: entry.sends,
          error: new ArmbridgeError("ARMB_ERR_DEVICE_TIMEOUT", {
            op: message.op,
            ms: options.ackTimeoutMs * entry.sends,
          }),
        });
      };
      this.pending.set(seq, entry);
      options.signal.addEventListener("abort", onAbort, { once: true });
      send();
    });
  }

  /** Routes a reply to its request. Returns false for a reply nobody waits for (a late duplicate). */
  handleReply(reply: DeviceReply): boolean {
    const entry = this.pending.get(reply.ackSeq);
    if (!entry) {
      this.unmatched += 1;
      return false;
    }
    entry.settle({ kind: "reply", reply, sends: entry.sends });
    return true;
  }

  /** Ends every pending request without another send. */
  interruptAll(error: ArmbridgeError): void {
    for (const entry of [...this.pending.values()]) entry.settle({ kind: "interrupted", error, sends: entry.sends });
  }

  private allocateSeq(): number {
    // Skip seqs still pending so two requests can never share a reply.
    do {
      this.lastSeq = this.lastSeq >= SEQ_MAX ? 1 : this.lastSeq + 1;
    } while (this.pending.has(this.lastSeq));
    return this.lastSeq;
  }
}
