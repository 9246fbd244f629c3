import type { Logger } from "pino";
import { ArmbridgeError, isArmbridgeError } from "../../errors.js";
import type { ByteLink } from "../link/ByteLink.js";
import type { BackoffOptions } from "../link/ExponentialBackoff.js";
import { LinkLifecycle, type LinkReturn } from "../link/LinkLifecycle.js";
import type { ArmStatus } from "../Transport.js";
import { checkHello, type ConnectedDevice, type HelloExpectation } from "./checkHello.js";
import type { FrameCodec } from "./FrameCodec.js";
import { MotionWatches } from "./MotionWatches.js";
import type { DecodeResult, MessageOf } from "../../protocol/serial/index.js";
import { RequestChannel } from "./RequestChannel.js";
import { requestHello } from "./requestHello.js";
import { SerialHeartbeat } from "./SerialHeartbeat.js";
import type { DeviceReboot, RequestTiming, SerialConnectionState } from "./SerialTransportOptions.js";
import { StatusCache, toArmStatus } from "./StatusCache.js";
import { isDeviceReply } from "./wireTypes.js";

export interface SerialConnectionOptions {
  readonly link: ByteLink;
  readonly codec: FrameCodec;
  /** The transport's logger; the connection logs under it. */
  readonly logger: Logger;
  readonly timing: RequestTiming;
  readonly heartbeatMs: number | undefined;
  readonly openTimeoutMs: number;
  readonly backoff: BackoffOptions | undefined;
  /** Whether a lost link is tried again (default true). */
  readonly reconnect: boolean | undefined;
  readonly hostVersion: string;
  readonly now: () => number;
  /** What the device's HELLO must match (the arm config's axes and staleness). */
  readonly expected: HelloExpectation;
  /** Names the transport in errors. */
  readonly transportKind: string;
}

/**
 * One serial link to the firmware: open, handshake, heartbeat, and the
 * incoming frame stream (replies to the request channel, STATUS to the
 * status cache and the waiting motions). Reconnection is the shared
 * LinkLifecycle's; a reconnection attempt here is the handshake again, and a
 * device whose HELLO no longer matches the config (other axes, other limits)
 * is refused with ARMB_ERR_DEVICE_REPLACED and never driven. It owns what a
 * lost link or a device reboot interrupts: the pending requests and the
 * waiting motions.
 */
export class SerialConnection {
  readonly channel: RequestChannel;
  readonly statuses: StatusCache;
  readonly motions = new MotionWatches();
  /** What a console shows of this link (connected, reconnecting with attempt and next try, down), and its losses. */
  readonly lifecycle: LinkLifecycle;

  private readonly options: SerialConnectionOptions;
  private readonly link: ByteLink;
  private readonly codec: FrameCodec;
  private readonly logger: Logger;
  private readonly lifetime = new AbortController();
  private readonly unsubscribeLink: (() => void)[];
  private readonly connectedWaiters = new Set<(connected: boolean) => void>();
  private readonly rebootListeners = new Set<(reboot: DeviceReboot) => void>();
  private readonly heartbeat: SerialHeartbeat;

  private currentState: SerialConnectionState = "idle";
  private decoder: ReturnType<FrameCodec["createDecoder"]>;
  private connected: ConnectedDevice | undefined;
  private currentBootId: number | undefined;
  private openPromise: Promise<void> | undefined;
  private closePromise: Promise<void> | undefined;
  private garbageFrames = 0;
  private acceptedStatuses = 0;
  private lastStatusAcceptedAt = -Infinity;

  constructor(options: SerialConnectionOptions) {
    this.options = options;
    this.link = options.link;
    this.codec = options.codec;
    this.logger = options.logger;
    this.channel = new RequestChannel(this.codec, (bytes) => this.link.write(bytes), this.logger);
    this.statuses = new StatusCache(this.logger);
    this.heartbeat = new SerialHeartbeat({
      channel: this.channel,
      lifetime: this.lifetime.signal,
      heartbeatMs: options.heartbeatMs,
      isConnected: () => this.currentState === "connected",
    });
    this.lifecycle = new LinkLifecycle({
      describe: this.link.url,
      logger: this.logger,
      now: options.now,
      backoff: options.backoff,
      reconnect: options.reconnect,
      attemptTimeoutMs: options.openTimeoutMs,
      lastStatusAt: () => this.statuses.latest()?.stampMs,
      incarnation: () => (this.currentBootId === undefined ? undefined : `boot:${this.currentBootId}`),
      inFlight: () => this.motions.actionIds(),
      attempt: (signal) => this.reconnect(signal),
    });
    this.decoder = this.codec.createDecoder();
    this.unsubscribeLink = [
      this.link.onData((chunk) => this.handleData(chunk)),
      this.link.onClose((error) => this.handleLinkClose(error)),
    ];
  }

  get state(): SerialConnectionState {
    // A returning link is connected once the lifecycle has taken the return, not at the
    // HELLO: until then a motion's pre-send check (which reads the lifecycle) refuses it,
    // and this state must not say otherwise.
    if (this.currentState === "connected" && this.lifecycle.state === "reconnecting") return "reconnecting";
    return this.currentState;
  }

  /** The device as of the newest HELLO, or undefined while not connected. */
  get device(): ConnectedDevice | undefined {
    return this.connected;
  }

  /** The device's current boot: from HELLO, or newer from a STATUS. Kept across reconnections so a reboot is seen. */
  get bootId(): number | undefined {
    return this.currentBootId;
  }

  /** STATUS frames accepted since construction; a MOVE is re-sent only after this grew. */
  get statusCount(): number {
    return this.acceptedStatuses;
  }

  /** performance.now() when the newest STATUS was accepted. */
  get lastStatusAt(): number {
    return this.lastStatusAcceptedAt;
  }

  /** Frames dropped as undecodable (garbage, bad CRC) since construction. */
  get droppedFrames(): number {
    return this.garbageFrames;
  }

  /** Aborted by close(): every wait on the device ends with it. */
  get lifetimeSignal(): AbortSignal {
    return this.lifetime.signal;
  }

  get linkUrl(): string {
    return this.link.url;
  }

  onReboot(listener: (reboot: DeviceReboot) => void): () => void {
    this.rebootListeners.add(listener);
    return () => this.rebootListeners.delete(listener);
  }

  async open(signal?: AbortSignal): Promise<void> {
    if (this.currentState === "closed") throw this.closedError();
    if (this.currentState === "connected" || this.currentState === "reconnecting") return;
    this.openPromise ??= this.firstOpen(signal);
    return this.openPromise;
  }

  async close(): Promise<void> {
    this.closePromise ??= this.shutdown();
    return this.closePromise;
  }

  /** True once connected; false if the connection closes or `signal` fires first. */
  async waitConnected(signal: AbortSignal): Promise<boolean> {
    if (this.currentState === "connected") return true;
    if (this.currentState === "closed" || signal.aborted) return false;
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

  closedError(): ArmbridgeError {
    return new ArmbridgeError("ARMB_ERR_TRANSPORT_CLOSED", { transport: this.options.transportKind });
  }

  notConnectedError(): ArmbridgeError {
    return new ArmbridgeError("ARMB_ERR_LINK_LOST", { link: this.link.url, reason: "not connected" });
  }

  // ------------------------------------------------------------------ lifecycle

  private async firstOpen(signal: AbortSignal | undefined): Promise<void> {
    this.currentState = "opening";
    this.lifecycle.down(`opening ${this.link.url}`);
    const deadline = AbortSignal.any([signal ?? AbortSignal.timeout(this.options.openTimeoutMs), this.lifetime.signal]);
    try {
      await this.connect(deadline);
    } catch (error) {
      this.openPromise = undefined;
      this.connected = undefined;
      this.heartbeat.stop();
      if ((this.currentState as SerialConnectionState) !== "closed") {
        this.currentState = "idle";
        this.lifecycle.down(`could not open ${this.link.url}: ${(error as Error).message}`);
      }
      await this.link.close();
      throw error;
    }
    this.lifecycle.opened();
    this.notifyConnected(true);
  }

  /**
   * One reconnection attempt (LinkLifecycle): the handshake again. A HELLO
   * that no longer matches the config is another device on this link:
   * refused, never driven. A new boot id is a new incarnation: the device
   * lost its memory of actions (a power loss, a reset), and what was in
   * flight is settled by observation, never re-sent.
   */
  private async reconnect(signal: AbortSignal): Promise<LinkReturn> {
    const previousBoot = this.currentBootId;
    try {
      await this.connect(signal);
    } catch (error) {
      this.connected = undefined;
      this.heartbeat.stop();
      if (this.currentState !== "closed") this.currentState = "reconnecting";
      await this.link.close();
      if (isArmbridgeError(error, "ARMB_ERR_DEVICE_MISMATCH")) {
        throw new ArmbridgeError(
          "ARMB_ERR_DEVICE_REPLACED",
          { link: this.link.url, detail: String(error.details.detail ?? error.message) },
          { cause: error },
        );
      }
      throw error;
    }
    this.notifyConnected(true);
    const boot = this.currentBootId;
    return previousBoot !== undefined && boot !== previousBoot
      ? {
          incarnation: "new",
          detail: `the device came back with a new boot (${previousBoot} -> ${boot}): it restarted and lost its memory of actions in flight`,
        }
      : { incarnation: "same", detail: `the device came back in the same boot (${boot ?? "?"})` };
  }

  private async shutdown(): Promise<void> {
    this.currentState = "closed";
    this.lifetime.abort();
    this.heartbeat.stop();
    const closed = this.closedError();
    this.channel.interruptAll(closed);
    this.motions.interruptAll({ kind: "link_error", error: closed });
    this.notifyConnected(false);
    // Let a reconnection or first open that is under way unwind before the link goes.
    await this.lifecycle.close();
    await this.openPromise?.catch(() => undefined);
    for (const unsubscribe of this.unsubscribeLink) unsubscribe();
    await this.link.close();
    this.logger.info("closed");
  }

  /** Opens the link, shakes hands, checks the device matches the config, waits for the first status. */
  private async connect(signal: AbortSignal): Promise<void> {
    this.decoder = this.codec.createDecoder();
    await this.link.open(signal);
    const { hostVersion, timing } = this.options;
    const hello = await requestHello(this.channel, this.link.url, hostVersion, timing, signal);
    this.connected = checkHello(hello, this.options.expected);
    const previousBootId = this.currentBootId;
    this.currentBootId = hello.bootId;
    this.currentState = "connected";
    this.heartbeat.start(hello.watchdogMs);
    this.logger.info(
      {
        firmware: hello.firmwareVersion,
        bootId: hello.bootId,
        watchdogMs: hello.watchdogMs,
        statusRateHz: hello.statusRateHz,
      },
      "device connected",
    );
    if (previousBootId !== undefined && previousBootId !== hello.bootId)
      this.reportReboot(previousBootId, hello.bootId);
    const first = await this.statuses.next(signal);
    if (!first) throw new ArmbridgeError("ARMB_ERR_TRANSPORT_NO_STATUS", { transport: this.options.transportKind });
  }

  private handleLinkClose(error: Error | undefined): void {
    // undefined: we closed it ourselves (close(), or a failed connection attempt being cleaned up).
    if (error === undefined || this.currentState === "closed") return;
    const lost = new ArmbridgeError(
      "ARMB_ERR_LINK_LOST",
      { link: this.link.url, reason: error.message },
      { cause: error },
    );
    const wasConnected = this.currentState === "connected";
    // Told before the waits end, so the loss records what was in flight.
    if (wasConnected) {
      this.currentState = "reconnecting";
      this.lifecycle.lost(`link lost: ${error.message}`);
    }
    this.connected = undefined;
    this.heartbeat.stop();
    this.channel.interruptAll(lost);
    this.motions.interruptAll({ kind: "link_error", error: lost });
  }

  private notifyConnected(connected: boolean): void {
    for (const waiter of [...this.connectedWaiters]) waiter(connected);
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
        if (!this.channel.handleReply(message))
          this.logger.debug({ op: message.op, ackSeq: message.ackSeq }, "reply nobody waits for (late duplicate)");
      } else this.logger.debug({ op: message.op }, "ignored a host-only frame from the device");
    }
  }

  private handleStatus(frame: MessageOf<"STATUS">): void {
    const device = this.connected;
    if (!device) return;
    if (this.currentBootId !== undefined && frame.bootId !== this.currentBootId) {
      const previous = this.currentBootId;
      const inFlight = this.motions.actionIds();
      this.reportReboot(previous, frame.bootId);
      this.currentBootId = frame.bootId;
      this.lifecycle.restarted(
        `the device rebooted behind a link that stayed up (boot ${previous} -> ${frame.bootId}): it lost its memory of actions in flight`,
        inFlight,
      );
    }
    const status: ArmStatus | undefined = toArmStatus(frame, device.axisNames, this.options.now());
    if (!status) {
      this.logger.warn(
        { axes: frame.axes.length, expected: device.axisNames.length },
        "STATUS axis count differs from HELLO; frame ignored",
      );
      return;
    }
    this.acceptedStatuses += 1;
    this.lastStatusAcceptedAt = performance.now();
    this.statuses.update(status);
    this.motions.dispatch(status);
  }

  /**
   * The device lost its memory: requests in flight are not re-sent (a fresh
   * device would execute a re-sent MOVE as new), and waiting motions end with
   * link_error so the caller observes them; queryAction then answers
   * `unknown` for them rather than voiding them.
   */
  private reportReboot(previousBootId: number, bootId: number): void {
    const error = new ArmbridgeError("ARMB_ERR_DEVICE_REBOOTED", { from: previousBootId, to: bootId });
    const inFlightActionIds = this.motions.actionIds();
    this.logger.warn({ previousBootId, bootId, inFlight: inFlightActionIds }, "device rebooted");
    this.channel.interruptAll(error);
    this.motions.interruptAll({ kind: "link_error", error });
    const reboot: DeviceReboot = { previousBootId, bootId, inFlightActionIds };
    for (const listener of [...this.rebootListeners]) {
      try {
        listener(reboot);
      } catch (err) {
        this.logger.error({ err }, "reboot listener threw");
      }
    }
  }
}
