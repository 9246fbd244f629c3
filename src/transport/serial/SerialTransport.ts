import type { Logger } from "pino";
import { actuatorsOf } from "../../config/actuators.js";
import type { ArmConfig } from "../../config/ArmConfig.js";
import { ArmbridgeError } from "../../errors.js";
import { silentLogger } from "../../observability/logger.js";
import type { ActionRecord, ArmStatus, HaltResult, MotionCommand, MotionEnd, Transport } from "../Transport.js";
import { PROTOCOL_V1_CODEC, type FrameCodec } from "./FrameCodec.js";
import { ExponentialBackoff, type BackoffOptions } from "./link/ExponentialBackoff.js";
import type { ByteLink } from "./link/ByteLink.js";
import { PROTOCOL_VERSION, actionIdProblem, type DecodeResult, type MessageOf } from "./protocol/index.js";
import { RequestChannel, type RequestOutcome } from "./RequestChannel.js";
import { StatusCache, toActionRecord, toArmStatus } from "./StatusCache.js";
import { linkSignals } from "../linkSignals.js";
import { isDeviceReply } from "./wireTypes.js";

export interface SerialTransportOptions {
  /** Wire codec; default protocol v1 (docs/serial-protocol.md). */
  readonly codec?: FrameCodec;
  readonly logger?: Logger;
  /** Wait for a reply to each send before re-sending the same bytes. Default 250 ms. */
  readonly ackTimeoutMs?: number;
  /** Re-sends of an unanswered frame (same bytes). Default 3, so at most 4 sends. */
  readonly maxResends?: number;
  /** PING period. Default: a quarter of the device's watchdog, within [20, 1000] ms. */
  readonly heartbeatMs?: number;
  /** `open()` without a signal gives up after this long. Default 5000 ms; also bounds each reconnection attempt. */
  readonly openTimeoutMs?: number;
  /**
   * While a motion runs and the status stream has not mentioned it for this
   * long, ask the device with QUERY_ACTION (which never moves anything). Default 500 ms.
   */
  readonly completionPollMs?: number;
  /** Reconnection delays after the link is lost. Default 100 ms doubling to 5 s, half jittered. */
  readonly backoff?: BackoffOptions;
  /** Sent in HELLO_REQ. */
  readonly hostVersion?: string;
  /** Local clock for status stamps. Default Date.now. */
  readonly now?: () => number;
}

export const SERIAL_TRANSPORT_DEFAULTS = {
  ackTimeoutMs: 250,
  maxResends: 3,
  openTimeoutMs: 5000,
  completionPollMs: 500,
  heartbeatFraction: 0.25,
  heartbeatMinMs: 20,
  heartbeatMaxMs: 1000,
  hostVersion: "armbridge/0.1.0",
} as const;

/** What the device said about itself in the newest HELLO. */
export interface DeviceInfo {
  readonly firmwareVersion: string;
  readonly protocolVersion: number;
  readonly bootId: number;
  readonly statusRateHz: number;
  readonly watchdogMs: number;
  readonly axes: readonly string[];
}

/** A device reboot seen by the transport: every action it had in flight is no longer known to the device. */
export interface DeviceReboot {
  readonly previousBootId: number;
  readonly bootId: number;
  /** Motions that were waiting when the reboot was seen; they ended with link_error ARMB_ERR_DEVICE_REBOOTED. */
  readonly inFlightActionIds: readonly string[];
}

export type SerialConnectionState = "idle" | "opening" | "connected" | "reconnecting" | "closed";

interface Session {
  readonly hello: MessageOf<"HELLO">;
  readonly axisNames: readonly string[];
  readonly axisIndex: ReadonlyMap<string, number>;
}

interface MotionWatch {
  readonly actionId: string;
  /** A record for this action, from STATUS or an ACTION reply. */
  readonly onRecord: (record: ActionRecord) => void;
  /** The link or the device failed under this motion. */
  readonly interrupt: (end: MotionEnd) => void;
}

/** How many action ids remember the boot they were sent in (enough for hours of tool calls). */
const SENT_BOOT_MEMORY = 10_000;
/** sentInBoot value for an action whose MOVE met NACK BOOT_MISMATCH; boot ids are never 0, so it matches no boot. */
const BOOT_LOST = 0;

/**
 * The Transport for arm firmware on a serial line (docs/serial-protocol.md).
 *
 * Motions are sent once; an unanswered frame is re-sent byte for byte a
 * bounded number of times so the device can de-duplicate it, and never after
 * the caller's signal fired, the link dropped or the device rebooted. When the
 * link drops, waiting calls end with `link_error` and the transport reconnects
 * with backoff on its own; nothing is re-issued.
 */
export class SerialTransport implements Transport {
  readonly kind = "serial";

  private readonly link: ByteLink;
  private readonly codec: FrameCodec;
  private readonly logger: Logger;
  private readonly ackTimeoutMs: number;
  private readonly maxResends: number;
  private readonly heartbeatMs: number | undefined;
  private readonly openTimeoutMs: number;
  private readonly completionPollMs: number;
  private readonly hostVersion: string;
  private readonly now: () => number;
  private readonly expectedAxes: readonly { readonly name: string; readonly kind: "joint" | "gripper" }[];

  private readonly channel: RequestChannel;
  private readonly statuses: StatusCache;
  private readonly backoff: ExponentialBackoff;
  private readonly lifetime = new AbortController();
  private readonly unsubscribeLink: (() => void)[];
  private readonly motions = new Set<MotionWatch>();
  private readonly sentInBoot = new Map<string, number>();
  private readonly connectedWaiters = new Set<(connected: boolean) => void>();
  private readonly rebootListeners = new Set<(reboot: DeviceReboot) => void>();

  private state: SerialConnectionState = "idle";
  private decoder: ReturnType<FrameCodec["createDecoder"]>;
  private session: Session | undefined;
  private bootId: number | undefined;
  private openPromise: Promise<void> | undefined;
  private closePromise: Promise<void> | undefined;
  private heartbeatTimer: NodeJS.Timeout | undefined;
  private pingInFlight = false;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private reconnectAttempt: AbortController | undefined;
  private reconnectTask: Promise<void> | undefined;
  private garbageFrames = 0;
  /** STATUS frames accepted from the current boot; a MOVE is re-sent only after this grew. */
  private statusCount = 0;
  /** performance.now() when the newest STATUS was accepted. */
  private lastStatusAt = -Infinity;

  constructor(config: ArmConfig, link: ByteLink, options: SerialTransportOptions = {}) {
    this.link = link;
    this.codec = options.codec ?? PROTOCOL_V1_CODEC;
    this.logger = (options.logger ?? silentLogger).child({ component: "serial-transport", link: link.url });
    this.ackTimeoutMs = options.ackTimeoutMs ?? SERIAL_TRANSPORT_DEFAULTS.ackTimeoutMs;
    this.maxResends = options.maxResends ?? SERIAL_TRANSPORT_DEFAULTS.maxResends;
    this.heartbeatMs = options.heartbeatMs;
    this.openTimeoutMs = options.openTimeoutMs ?? SERIAL_TRANSPORT_DEFAULTS.openTimeoutMs;
    this.completionPollMs = options.completionPollMs ?? SERIAL_TRANSPORT_DEFAULTS.completionPollMs;
    this.hostVersion = options.hostVersion ?? SERIAL_TRANSPORT_DEFAULTS.hostVersion;
    this.now = options.now ?? Date.now;
    this.expectedAxes = actuatorsOf(config).map((a) => ({ name: a.name, kind: a.kind }));
    this.channel = new RequestChannel(this.codec, (bytes) => this.link.write(bytes), this.logger);
    this.statuses = new StatusCache(this.logger);
    this.backoff = new ExponentialBackoff(options.backoff);
    this.decoder = this.codec.createDecoder();
    this.unsubscribeLink = [
      link.onData((chunk) => this.handleData(chunk)),
      link.onClose((error) => this.handleLinkClose(error)),
    ];
  }

  get connectionState(): SerialConnectionState {
    return this.state;
  }

  /** The newest HELLO, or undefined while not connected. */
  get device(): DeviceInfo | undefined {
    const s = this.session;
    if (!s) return undefined;
    const h = s.hello;
    return {
      firmwareVersion: h.firmwareVersion,
      protocolVersion: h.protocolVersion,
      bootId: h.bootId,
      statusRateHz: h.statusRateHz,
      watchdogMs: h.watchdogMs,
      axes: s.axisNames,
    };
  }

  /** Frames dropped as undecodable (garbage, bad CRC) since construction. */
  get droppedFrames(): number {
    return this.garbageFrames;
  }

  /** Link-level counters since construction, for benchmarks and diagnostics. */
  get counters(): { readonly droppedFrames: number; readonly resentFrames: number; readonly unmatchedReplies: number } {
    return { droppedFrames: this.garbageFrames, ...this.channel.counters };
  }

  /** Called when the device's boot id changes (reboot while connected, or found on reconnection). */
  onReboot(listener: (reboot: DeviceReboot) => void): () => void {
    this.rebootListeners.add(listener);
    return () => this.rebootListeners.delete(listener);
  }

  async open(signal?: AbortSignal): Promise<void> {
    if (this.state === "closed") throw this.closedError();
    if (this.state === "connected" || this.state === "reconnecting") return;
    this.openPromise ??= this.firstOpen(signal);
    return this.openPromise;
  }

  private async firstOpen(signal: AbortSignal | undefined): Promise<void> {
    this.state = "opening";
    const deadline = AbortSignal.any([signal ?? AbortSignal.timeout(this.openTimeoutMs), this.lifetime.signal]);
    try {
      await this.connect(deadline);
    } catch (error) {
      this.openPromise = undefined;
      this.session = undefined;
      this.stopHeartbeat();
      if ((this.state as SerialConnectionState) !== "closed") this.state = "idle";
      await this.link.close();
      throw error;
    }
  }

  async close(): Promise<void> {
    this.closePromise ??= this.shutdown();
    return this.closePromise;
  }

  private async shutdown(): Promise<void> {
    this.state = "closed";
    this.lifetime.abort();
    this.stopHeartbeat();
    if (this.reconnectTimer !== undefined) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = undefined;
    this.reconnectAttempt?.abort();
    const closed = this.closedError();
    this.channel.interruptAll(closed);
    this.interruptMotions({ kind: "link_error", error: closed });
    this.notifyConnected(false);
    // Let a reconnection or first open that is under way unwind before the link goes.
    await this.reconnectTask;
    await this.openPromise?.catch(() => undefined);
    for (const unsubscribe of this.unsubscribeLink) unsubscribe();
    await this.link.close();
    this.logger.info("closed");
  }

  /** The device's boot id: a reboot wipes its action memory. */
  armIncarnation(): string | undefined {
    // this.bootId, not the HELLO's: a reboot seen on STATUS changes it without a new HELLO.
    if (!this.session || this.bootId === undefined) return undefined;
    return `boot:${this.bootId}`;
  }

  /**
   * What the device's HELLO says it is. Protocol v1's HELLO carries no serial
   * number, so two devices with the same firmware and axes look alike here;
   * their boot ids (armIncarnation) still tell them apart.
   */
  armIdentity(): string | undefined {
    const h = this.session?.hello;
    if (!h) return undefined;
    return `serial firmware ${JSON.stringify(h.firmwareVersion)}, axes ${h.axes.map((a) => `${a.name}:${a.kind}`).join(",")}`;
  }

  latestStatus(): ArmStatus | undefined {
    return this.statuses.latest();
  }

  onStatus(listener: (status: ArmStatus) => void): () => void {
    return this.statuses.subscribe(listener);
  }

  // ------------------------------------------------------------------ motions

  async runMotion(command: MotionCommand, signal: AbortSignal): Promise<MotionEnd> {
    const { actionId } = command;
    const log = this.logger.child({ action_id: actionId });
    if (this.state === "closed") return { kind: "link_error", error: this.closedError() };
    if (signal.aborted) return { kind: "wait_ended" };
    const refuse = (reason: string): MotionEnd => ({
      kind: "refused",
      reason,
      error: new ArmbridgeError("ARMB_ERR_MOTION_REFUSED", { actionId, reason }),
    });
    const idProblem = actionIdProblem(actionId);
    if (idProblem) return refuse(idProblem);
    const session = this.session;
    // The boot this MOVE is addressed to: the device refuses it in any other (NACK BOOT_MISMATCH).
    const expectBootId = this.bootId;
    if (this.state !== "connected" || !session || expectBootId === undefined) {
      return { kind: "link_error", error: new ArmbridgeError("ARMB_ERR_LINK_LOST", { link: this.link.url, reason: "not connected" }) };
    }
    const targets: { axis: number; position: number }[] = [];
    for (const [name, position] of Object.entries(command.targets)) {
      const axis = session.axisIndex.get(name);
      if (axis === undefined) return refuse(`the device has no axis ${name}`);
      if (!Number.isFinite(position)) return refuse(`target for ${name} is not a finite number`);
      targets.push({ axis, position });
    }
    if (targets.length === 0) return refuse("no targets");
    if (!(command.speed > 0 && command.speed <= 1)) return refuse(`speed ${command.speed} is not in (0, 1]`);

    return new Promise<MotionEnd>((resolve) => {
      // Aborted when this run ends for any reason: stops resends and polls for it at once.
      const run = new AbortController();
      let mentionedSincePoll = false;
      let moveAnswered = false;
      let pollInFlight = false;

      const finish = (end: MotionEnd): void => {
        if (run.signal.aborted) return;
        run.abort();
        clearInterval(pollTimer);
        signal.removeEventListener("abort", onAbort);
        this.motions.delete(watch);
        log.debug({ end: end.kind, ...(end.kind === "ended" ? { state: end.record.state } : {}) }, "motion wait ended");
        resolve(end);
      };
      const onRecord = (record: ActionRecord): void => {
        mentionedSincePoll = true;
        switch (record.state) {
          case "unknown":
          case "executing":
            return;
          case "voided":
            finish(refuse(record.detail ?? "the action was voided before it ran"));
            return;
          case "reached":
          case "stopped":
          case "stalled":
          case "rejected":
          case "faulted":
            finish({ kind: "ended", record });
            return;
        }
      };
      const watch: MotionWatch = { actionId, onRecord, interrupt: finish };
      // The caller stopped waiting: no resend, no stop, no poll from here on.
      const onAbort = (): void => finish({ kind: "wait_ended" });

      const poll = async (): Promise<void> => {
        if (mentionedSincePoll || pollInFlight || !moveAnswered) {
          mentionedSincePoll = false;
          return;
        }
        pollInFlight = true;
        try {
          const outcome = await this.channel.request(
            { op: "QUERY_ACTION", actionId, voidIfUnknown: false },
            { signal: run.signal, maxResends: 0, ackTimeoutMs: this.ackTimeoutMs, actionId },
          );
          if (outcome.kind === "reply" && outcome.reply.op === "ACTION" && outcome.reply.record.actionId === actionId) {
            onRecord(toActionRecord(outcome.reply.record, outcome.reply.detail));
          }
        } finally {
          pollInFlight = false;
        }
      };

      const onMoveOutcome = (outcome: RequestOutcome): void => {
        moveAnswered = true;
        switch (outcome.kind) {
          case "reply": {
            const reply = outcome.reply;
            if (reply.op === "NACK" && reply.code === "BOOT_MISMATCH" && outcome.sends === 1) {
              // The only copy ever sent was refused by the new boot: nothing ran, anywhere.
              log.warn({ expectBootId, reason: reply.reason }, "device refused the MOVE: it rebooted before the only copy arrived");
              finish(refuse(`BOOT_MISMATCH: ${reply.reason} (the device rebooted before the command arrived; it was not run)`));
            } else if (reply.op === "NACK" && reply.code === "BOOT_MISMATCH") {
              // This copy did nothing, but an earlier copy may have run before
              // the reboot and been forgotten: the outcome is unknown, never refused.
              log.warn({ expectBootId, reason: reply.reason }, "device refused the MOVE: it is no longer in the boot it was sent to");
              this.markBootLost(actionId);
              finish({ kind: "link_error", error: new ArmbridgeError("ARMB_ERR_DEVICE_REBOOTED", { from: expectBootId, to: "a newer boot" }) });
            } else if (reply.op === "NACK") {
              log.info({ code: reply.code, reason: reply.reason }, "device refused the motion");
              finish(refuse(`${reply.code}: ${reply.reason}`));
            } else if (reply.op === "ACTION" && reply.record.actionId === actionId) {
              onRecord(toActionRecord(reply.record, reply.detail));
            } else {
              log.warn({ reply: reply.op }, "unexpected reply to MOVE; watching the status stream");
            }
            return;
          }
          case "no_reply":
            // The MOVE may or may not have arrived; the status stream and
            // QUERY_ACTION polls will tell. Sending it again is not an option.
            log.warn({ sends: outcome.sends }, "no reply to MOVE; watching the status stream");
            return;
          case "aborted":
            return;
          case "interrupted":
            finish({ kind: "link_error", error: outcome.error });
            return;
          case "unsendable":
            finish(refuse(outcome.error.message));
            return;
        }
      };

      const pollTimer = setInterval(() => void poll(), this.completionPollMs);
      this.motions.add(watch);
      signal.addEventListener("abort", onAbort, { once: true });
      this.rememberSentBoot(actionId);
      log.info({ targets: command.targets, speed: command.speed }, "sending motion");
      // With no status stream there is nothing to wait for before a resend.
      const streaming = session.hello.statusRateHz > 0;
      // A same-boot STATUS proves only that the device had not rebooted when it
      // sent it. It must also be fresh (two status periods), so a device that
      // rebooted after it would still be booting, deaf, when the resend arrives.
      const freshMs = streaming ? (2 * 1000) / session.hello.statusRateHz : Infinity;
      let statusesAtSend = this.statusCount;
      const mayResend = (): boolean => {
        if (streaming && (this.statusCount === statusesAtSend || performance.now() - this.lastStatusAt > freshMs)) return false;
        statusesAtSend = this.statusCount;
        return true;
      };
      void this.channel
        .request(
          { op: "MOVE", actionId, expectBootId, speed: command.speed, durationMs: 0, targets },
          { signal: run.signal, maxResends: this.maxResends, ackTimeoutMs: this.ackTimeoutMs, actionId, mayResend },
        )
        .then(onMoveOutcome);
    });
  }

  async queryAction(actionId: string, options: { voidIfUnknown: boolean; signal: AbortSignal }): Promise<ActionRecord | undefined> {
    const log = this.logger.child({ action_id: actionId });
    if (this.state === "closed" || actionIdProblem(actionId) !== undefined) return undefined;
    if (!(await this.waitConnected(options.signal))) return undefined;
    const sentBoot = this.sentInBoot.get(actionId);
    const bootAtAsk = this.bootId;
    // A device that rebooted since we sent the action may have run part of it
    // and forgotten: not knowing it proves nothing, so it must not be voided.
    const memoryLost = (): boolean => sentBoot !== undefined && sentBoot !== this.bootId;
    // Not AbortSignal.any: composed from the long-lived lifetime signal, it leaks on Node 20 (see linkSignals).
    const linked = linkSignals([options.signal, this.lifetime.signal]);
    const signal = linked.signal;
    try {
      const outcome = await this.channel.request(
        { op: "QUERY_ACTION", actionId, voidIfUnknown: options.voidIfUnknown && !memoryLost() },
        { signal, maxResends: this.maxResends, ackTimeoutMs: this.ackTimeoutMs, actionId },
      );
      if (outcome.kind !== "reply") {
        log.debug({ outcome: outcome.kind }, "action query got no answer");
        return undefined;
      }
      const reply = outcome.reply;
      if (reply.op !== "ACTION" || reply.record.actionId !== actionId) {
        log.warn({ reply: reply.op }, "unexpected reply to QUERY_ACTION");
        return undefined;
      }
      const record = toActionRecord(reply.record, reply.detail);
      const forgotten = (why: string): ActionRecord => ({ actionId, state: "unknown", moved: undefined, detail: why });
      const rebootedSince = (): string | undefined =>
        memoryLost() || bootAtAsk !== this.bootId
          ? `the device rebooted since this action was sent (boot ${sentBoot === BOOT_LOST ? "refused with BOOT_MISMATCH" : (sentBoot ?? bootAtAsk ?? "?")} -> ${this.bootId ?? "?"}); it lost its memory of it`
          : undefined;
      if (record.state !== "unknown" && record.state !== "voided") return record;
      const rebooted = rebootedSince();
      if (rebooted) return forgotten(rebooted);
      if (record.state === "voided" && (this.session?.hello.statusRateHz ?? 0) > 0) {
        // The ACTION reply names no boot: a device that rebooted unseen (no STATUS
        // from the new boot yet) voids what it forgot. Only a STATUS that follows
        // the reply shows which boot answered; until one does, moved:false is no evidence.
        const confirmed = await this.statuses.next(signal);
        const lost = rebootedSince();
        if (lost) return forgotten(lost);
        if (!confirmed) return forgotten("voided, but no STATUS confirmed the device had not rebooted since the send");
      }
      return record;
    } finally {
      linked.dispose();
    }
  }

  async halt(options: { axes?: readonly string[]; signal: AbortSignal }): Promise<HaltResult> {
    if (this.state === "closed") return { halted: false, status: this.latestStatus(), error: this.closedError() };
    if (!(await this.waitConnected(options.signal)) || !this.session) {
      return {
        halted: false,
        status: this.latestStatus(),
        error: new ArmbridgeError("ARMB_ERR_LINK_LOST", { link: this.link.url, reason: "not connected" }),
      };
    }
    const axes: number[] = [];
    for (const name of options.axes ?? []) {
      const index = this.session.axisIndex.get(name);
      if (index === undefined) {
        return {
          halted: false,
          status: this.latestStatus(),
          error: new ArmbridgeError("ARMB_ERR_ARGS_INVALID", { tool: "halt", issues: `the device has no axis ${name}` }),
        };
      }
      axes.push(index);
    }
    const linked = linkSignals([options.signal, this.lifetime.signal]);
    const signal = linked.signal;
    const startedMs = this.now();
    // Subscribe before sending so the first status after the ACK cannot slip by.
    const statusAfterAck = new AbortController();
    let acked = false;
    let observed: ArmStatus | undefined;
    const unsubscribe = this.statuses.subscribe((status) => {
      if (acked && !observed) {
        observed = status;
        statusAfterAck.abort();
      }
    });
    try {
      // STOP is idempotent, so re-sending it is always safe.
      const outcome = await this.channel.request({ op: "STOP", axes }, { signal, maxResends: this.maxResends, ackTimeoutMs: this.ackTimeoutMs });
      if (outcome.kind !== "reply") {
        const error =
          outcome.kind === "aborted"
            ? new ArmbridgeError("ARMB_ERR_DEVICE_TIMEOUT", { op: "STOP", ms: this.now() - startedMs })
            : outcome.error;
        return { halted: false, status: this.latestStatus(), error };
      }
      if (outcome.reply.op === "NACK") {
        return {
          halted: false,
          status: this.latestStatus(),
          error: new ArmbridgeError("ARMB_ERR_DEVICE_NACK", { op: "STOP", seq: outcome.reply.ackSeq, reason: outcome.reply.reason }),
        };
      }
      acked = true;
      this.logger.info({ axes: options.axes ?? "all" }, "halt acknowledged");
      await new Promise<void>((resolve) => {
        const any = AbortSignal.any([signal, statusAfterAck.signal]);
        if (any.aborted) resolve();
        else any.addEventListener("abort", () => resolve(), { once: true });
      });
      return { halted: true, status: observed };
    } finally {
      unsubscribe();
      linked.dispose();
    }
  }

  // ------------------------------------------------------------------ connection

  /** Opens the link, shakes hands, checks the device matches the config, waits for the first status. */
  private async connect(signal: AbortSignal): Promise<void> {
    this.decoder = this.codec.createDecoder();
    await this.link.open(signal);
    const outcome = await this.channel.request(
      { op: "HELLO_REQ", hostVersion: this.hostVersion },
      { signal, maxResends: this.maxResends, ackTimeoutMs: this.ackTimeoutMs },
    );
    if (outcome.kind !== "reply") {
      throw outcome.kind === "aborted"
        ? new ArmbridgeError("ARMB_ERR_LINK_OPEN", { link: this.link.url, reason: "no HELLO before the deadline" })
        : outcome.error;
    }
    if (outcome.reply.op !== "HELLO") {
      throw new ArmbridgeError("ARMB_ERR_LINK_OPEN", { link: this.link.url, reason: `the device answered HELLO_REQ with ${outcome.reply.op}` });
    }
    const hello = outcome.reply;
    this.session = this.checkHello(hello);
    const previousBootId = this.bootId;
    this.bootId = hello.bootId;
    this.state = "connected";
    this.startHeartbeat(hello.watchdogMs);
    this.logger.info(
      { firmware: hello.firmwareVersion, bootId: hello.bootId, watchdogMs: hello.watchdogMs, statusRateHz: hello.statusRateHz },
      "device connected",
    );
    if (previousBootId !== undefined && previousBootId !== hello.bootId) this.reportReboot(previousBootId, hello.bootId);
    const first = await this.statuses.next(signal);
    if (!first) throw new ArmbridgeError("ARMB_ERR_TRANSPORT_NO_STATUS", { transport: this.kind });
    this.notifyConnected(true);
  }

  private checkHello(hello: MessageOf<"HELLO">): Session {
    const mismatch = (detail: string): ArmbridgeError => new ArmbridgeError("ARMB_ERR_DEVICE_MISMATCH", { detail });
    if (hello.protocolVersion !== PROTOCOL_VERSION) {
      throw mismatch(`protocol version ${hello.protocolVersion} (this bridge speaks ${PROTOCOL_VERSION})`);
    }
    const device = hello.axes.map((a) => `${a.name}:${a.kind}`).sort();
    const expected = this.expectedAxes.map((a) => `${a.name}:${a.kind}`).sort();
    if (device.length !== expected.length || device.some((axis, i) => axis !== expected[i])) {
      throw mismatch(`${hello.axes.length} axes [${hello.axes.map((a) => a.name).join(", ")}]; the config has ${expected.length} [${this.expectedAxes.map((a) => a.name).join(", ")}]`);
    }
    const axisNames = hello.axes.map((a) => a.name);
    return { hello, axisNames, axisIndex: new Map(axisNames.map((name, i) => [name, i])) };
  }

  private handleLinkClose(error: Error | undefined): void {
    // undefined: we closed it ourselves (close(), or a failed connection attempt being cleaned up).
    if (error === undefined || this.state === "closed") return;
    const lost = new ArmbridgeError("ARMB_ERR_LINK_LOST", { link: this.link.url, reason: error.message }, { cause: error });
    this.logger.warn({ err: error, inFlight: [...this.motions].map((m) => m.actionId) }, "link lost");
    const wasConnected = this.state === "connected";
    this.session = undefined;
    this.stopHeartbeat();
    this.channel.interruptAll(lost);
    this.interruptMotions({ kind: "link_error", error: lost });
    if (wasConnected) {
      this.state = "reconnecting";
      this.scheduleReconnect();
    }
  }

  private scheduleReconnect(): void {
    if (this.state !== "reconnecting") return;
    const delay = this.backoff.next();
    this.logger.info({ delayMs: delay, attempt: this.backoff.attempts }, "reconnecting");
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      this.reconnectTask = this.tryReconnect();
    }, delay);
  }

  private async tryReconnect(): Promise<void> {
    const attempt = new AbortController();
    this.reconnectAttempt = attempt;
    try {
      await this.connect(AbortSignal.any([attempt.signal, AbortSignal.timeout(this.openTimeoutMs), this.lifetime.signal]));
      this.backoff.reset();
      this.logger.info("reconnected");
    } catch (error) {
      if (this.state === "closed") return;
      this.logger.warn({ err: error }, "reconnection attempt failed");
      this.session = undefined;
      this.stopHeartbeat();
      this.state = "reconnecting";
      await this.link.close();
      this.scheduleReconnect();
    } finally {
      this.reconnectAttempt = undefined;
    }
  }

  private async waitConnected(signal: AbortSignal): Promise<boolean> {
    if (this.state === "connected") return true;
    if (this.state === "closed" || signal.aborted) return false;
    return new Promise<boolean>((resolve) => {
      const done = (connected: boolean): void => {
        this.connectedWaiters.delete(done);
        signal.removeEventListener("abort", onAbort);
        resolve(connected);
      };
      const onAbort = (): void => done(false);
      this.connectedWaiters.add(done);
      signal.addEventListener("abort", onAbort, { once: true });
    });
  }

  private notifyConnected(connected: boolean): void {
    for (const waiter of [...this.connectedWaiters]) waiter(connected);
  }

  private startHeartbeat(watchdogMs: number): void {
    this.stopHeartbeat();
    const d = SERIAL_TRANSPORT_DEFAULTS;
    const period =
      this.heartbeatMs ??
      (watchdogMs > 0 ? Math.min(d.heartbeatMaxMs, Math.max(d.heartbeatMinMs, Math.floor(watchdogMs * d.heartbeatFraction))) : d.heartbeatMaxMs);
    this.heartbeatTimer = setInterval(() => void this.ping(period), period);
  }

  private stopHeartbeat(): void {
    if (this.heartbeatTimer !== undefined) clearInterval(this.heartbeatTimer);
    this.heartbeatTimer = undefined;
  }

  private async ping(period: number): Promise<void> {
    if (this.pingInFlight || this.state !== "connected") return;
    this.pingInFlight = true;
    try {
      // A lost PING is not re-sent: the next period sends a fresh one.
      await this.channel.request({ op: "PING" }, { signal: this.lifetime.signal, maxResends: 0, ackTimeoutMs: period });
    } finally {
      this.pingInFlight = false;
    }
  }

  // ------------------------------------------------------------------ incoming frames

  private handleData(chunk: Uint8Array): void {
    let results: DecodeResult[];
    try {
      results = this.decoder.push(chunk);
    } catch (error) {
      // The codec promises not to throw; if it ever does, drop the chunk, not the transport.
      this.logger.error({ err: error }, "frame decoder threw");
      return;
    }
    for (const result of results) {
      if (!result.ok) {
        this.garbageFrames += 1;
        this.logger.debug({ reason: result.reason }, "dropped an undecodable frame");
        continue;
      }
      const message = result.message;
      if (message.op === "STATUS") this.handleStatus(message);
      else if (isDeviceReply(message)) {
        if (!this.channel.handleReply(message)) this.logger.debug({ op: message.op, ackSeq: message.ackSeq }, "reply nobody waits for (late duplicate)");
      } else this.logger.debug({ op: message.op }, "ignored a host-only frame from the device");
    }
  }

  private handleStatus(frame: MessageOf<"STATUS">): void {
    const session = this.session;
    if (!session) return;
    if (this.bootId !== undefined && frame.bootId !== this.bootId) {
      this.reportReboot(this.bootId, frame.bootId);
      this.bootId = frame.bootId;
    }
    const status = toArmStatus(frame, session.axisNames, this.now());
    if (!status) {
      this.logger.warn({ axes: frame.axes.length, expected: session.axisNames.length }, "STATUS axis count differs from HELLO; frame ignored");
      return;
    }
    this.statusCount += 1;
    this.lastStatusAt = performance.now();
    this.statuses.update(status);
    if (this.motions.size === 0) return;
    const byId = new Map(status.actions.map((r) => [r.actionId, r]));
    for (const watch of [...this.motions]) {
      const record = byId.get(watch.actionId);
      if (record) watch.onRecord(record);
    }
  }

  /**
   * The device lost its memory: requests in flight are not re-sent (a fresh
   * device would execute a re-sent MOVE as new), and waiting motions end with
   * link_error so the caller observes them; queryAction then answers
   * `unknown` for them rather than voiding them.
   */
  private reportReboot(previousBootId: number, bootId: number): void {
    const error = new ArmbridgeError("ARMB_ERR_DEVICE_REBOOTED", { from: previousBootId, to: bootId });
    const inFlightActionIds = [...this.motions].map((m) => m.actionId);
    this.logger.warn({ previousBootId, bootId, inFlight: inFlightActionIds }, "device rebooted");
    this.channel.interruptAll(error);
    this.interruptMotions({ kind: "link_error", error });
    const reboot: DeviceReboot = { previousBootId, bootId, inFlightActionIds };
    for (const listener of [...this.rebootListeners]) {
      try {
        listener(reboot);
      } catch (err) {
        this.logger.error({ err }, "reboot listener threw");
      }
    }
  }

  private interruptMotions(end: MotionEnd): void {
    for (const watch of [...this.motions]) watch.interrupt(end);
  }

  private rememberSentBoot(actionId: string): void {
    if (this.bootId === undefined) return;
    this.sentInBoot.delete(actionId);
    this.sentInBoot.set(actionId, this.bootId);
    if (this.sentInBoot.size > SENT_BOOT_MEMORY) {
      const oldest = this.sentInBoot.keys().next();
      if (!oldest.done) this.sentInBoot.delete(oldest.value);
    }
  }

  /**
   * The device said (NACK BOOT_MISMATCH) it is no longer in the boot this
   * action was sent in, before any STATUS from its new boot arrived: from now
   * on queryAction treats the action as sent in a lost boot.
   */
  private markBootLost(actionId: string): void {
    this.sentInBoot.delete(actionId);
    this.sentInBoot.set(actionId, BOOT_LOST);
  }

    private closedError(): ArmbridgeError {
    return new ArmbridgeError("ARMB_ERR_TRANSPORT_CLOSED", { transport: this.kind });
  }
}
