import { actuatorsOf } from "../../config/actuators.js";
import type { ArmConfig } from "../../config/ArmConfig.js";
import { silentLogger } from "../../observability/logger.js";
import { FLOAT32_WIRE } from "../WireNumbers.js";
import type {
  ActionRecord,
  ArmIdentity,
  ArmStatus,
  HaltResult,
  LinkState,
  MotionCommand,
  MotionEnd,
  MotionTimingSource,
  Transport,
} from "../Transport.js";
import { PROTOCOL_V1_CODEC } from "./FrameCodec.js";
import { haltSerialAxes, type SerialHaltContext } from "./haltSerialAxes.js";
import type { ByteLink } from "../link/ByteLink.js";
import { querySerialAction, type SerialQueryContext } from "./querySerialAction.js";
import { runSerialMotion, type SerialMotionContext } from "./runSerialMotion.js";
import { SentBootMemory } from "./SentBootMemory.js";
import { SerialConnection } from "./SerialConnection.js";
import {
  SERIAL_TRANSPORT_DEFAULTS,
  type DeviceInfo,
  type DeviceReboot,
  type RequestTiming,
  type SerialConnectionState,
  type SerialTransportOptions,
} from "./SerialTransportOptions.js";

export {
  SERIAL_TRANSPORT_DEFAULTS,
  type DeviceInfo,
  type DeviceReboot,
  type SerialConnectionState,
  type SerialTransportOptions,
};

/**
 * The Transport for arm firmware on a serial line (docs/serial-protocol.md).
 *
 * Motions are sent once; an unanswered frame is re-sent byte for byte a
 * bounded number of times so the device can de-duplicate it, and never after
 * the caller's signal fired, the link dropped or the device rebooted. When the
 * link drops, waiting calls end with `link_error` and the transport reconnects
 * with backoff on its own; nothing is re-issued.
 *
 * The jobs live beside it: SerialConnection (lifecycle, handshake, heartbeat,
 * incoming frames), runSerialMotion (the motion state machine),
 * SentBootMemory with querySerialAction (what a reboot makes unknowable),
 * haltSerialAxes (STOP).
 */
export class SerialTransport implements Transport {
  readonly kind = "serial";
  /** Protocol v1 carries targets and speed as float32 (docs/serial-protocol.md §2). */
  readonly wire = FLOAT32_WIRE;

  private readonly connection: SerialConnection;
  /** What the motion, query and halt jobs share. */
  private readonly jobs: SerialMotionContext & SerialQueryContext & SerialHaltContext;

  constructor(config: ArmConfig, link: ByteLink, options: SerialTransportOptions = {}) {
    const logger = (options.logger ?? silentLogger).child({ component: "serial-transport", link: link.url });
    const timing: RequestTiming = {
      ackTimeoutMs: options.ackTimeoutMs ?? SERIAL_TRANSPORT_DEFAULTS.ackTimeoutMs,
      maxResends: options.maxResends ?? SERIAL_TRANSPORT_DEFAULTS.maxResends,
    };
    const now = options.now ?? Date.now;
    this.connection = new SerialConnection({
      link,
      codec: options.codec ?? PROTOCOL_V1_CODEC,
      logger,
      timing,
      heartbeatMs: options.heartbeatMs,
      openTimeoutMs: options.openTimeoutMs ?? SERIAL_TRANSPORT_DEFAULTS.openTimeoutMs,
      backoff: options.backoff,
      reconnect: options.reconnect,
      hostVersion: options.hostVersion ?? SERIAL_TRANSPORT_DEFAULTS.hostVersion,
      now,
      expected: { axes: actuatorsOf(config), staleAfterMs: config.staleAfterMs },
      transportKind: this.kind,
    });
    this.jobs = {
      connection: this.connection,
      bootMemory: new SentBootMemory(),
      timing,
      completionPollMs: options.completionPollMs ?? SERIAL_TRANSPORT_DEFAULTS.completionPollMs,
      ranges: new Map(actuatorsOf(config).map((a) => [a.name, { min: a.min, max: a.max }])),
      logger,
      now,
    };
  }

  get connectionState(): SerialConnectionState {
    return this.connection.state;
  }

  /** The newest HELLO, or undefined while not connected. */
  get device(): DeviceInfo | undefined {
    const d = this.connection.device;
    if (!d) return undefined;
    const h = d.hello;
    return {
      firmwareVersion: h.firmwareVersion,
      protocolVersion: h.protocolVersion,
      bootId: h.bootId,
      statusRateHz: h.statusRateHz,
      watchdogMs: h.watchdogMs,
      axes: d.axisNames,
    };
  }

  /** Frames dropped as undecodable (garbage, bad CRC) since construction. */
  get droppedFrames(): number {
    return this.connection.droppedFrames;
  }

  /** Link-level counters since construction, for benchmarks and diagnostics. */
  get counters(): { readonly droppedFrames: number; readonly resentFrames: number; readonly unmatchedReplies: number } {
    return { droppedFrames: this.connection.droppedFrames, ...this.connection.channel.counters };
  }

  /** Called when the device's boot id changes (reboot while connected, or found on reconnection). */
  onReboot(listener: (reboot: DeviceReboot) => void): () => void {
    return this.connection.onReboot(listener);
  }

  async open(signal?: AbortSignal): Promise<void> {
    return this.connection.open(signal);
  }

  async close(): Promise<void> {
    return this.connection.close();
  }

  /**
   * The firmware times a MOVE as one duration for every axis — the slowest
   * axis's rest-to-rest time at speed × max_velocity — and runs each axis on
   * its own trapezoid at max_acceleration within it (docs/serial-protocol.md,
   * MOVE; firmware-sim's SimulatedArm does exactly that).
   */
  readonly timing: MotionTimingSource = { motionTiming: () => ({ kind: "shared_duration" }) };

  readonly identity: ArmIdentity = {
    /**
     * What the device's HELLO says it is. Protocol v1's HELLO carries no serial
     * number, so two devices with the same firmware and axes look alike here;
     * their boot ids (the incarnation) still tell them apart.
     */
    arm: () => {
      const h = this.connection.device?.hello;
      if (!h) return undefined;
      return `serial firmware ${JSON.stringify(h.firmwareVersion)}, axes ${h.axes.map((a) => `${a.name}:${a.kind}`).join(",")}`;
    },
    /** The device's boot id: a reboot wipes its action memory. */
    incarnation: () => {
      // The connection's boot, not the HELLO's: a reboot seen on STATUS changes it without a new HELLO.
      const bootId = this.connection.bootId;
      if (!this.connection.device || bootId === undefined) return undefined;
      return `boot:${bootId}`;
    },
  };

  latestStatus(): ArmStatus | undefined {
    return this.connection.statuses.latest();
  }

  onStatus(listener: (status: ArmStatus) => void): () => void {
    return this.connection.statuses.subscribe(listener);
  }

  linkState(): LinkState {
    return this.connection.lifecycle.snapshot();
  }

  onLinkState(listener: (state: LinkState) => void): () => void {
    return this.connection.lifecycle.subscribe(listener);
  }

  async runMotion(command: MotionCommand, signal: AbortSignal): Promise<MotionEnd> {
    return runSerialMotion(this.jobs, command, signal);
  }

  async queryAction(
    actionId: string,
    options: { voidIfUnknown: boolean; signal: AbortSignal },
  ): Promise<ActionRecord | undefined> {
    return querySerialAction(this.jobs, actionId, options);
  }

  async halt(options: { axes?: readonly string[]; signal: AbortSignal }): Promise<HaltResult> {
    return haltSerialAxes(this.jobs, options);
  }
}
