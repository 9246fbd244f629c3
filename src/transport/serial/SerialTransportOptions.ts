import type { Logger } from "pino";
import type { FrameCodec } from "./FrameCodec.js";
import type { BackoffOptions } from "../link/ExponentialBackoff.js";

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
  /** Reconnection delays after the link is lost. Default 100 ms doubling to 2 s, half jittered. */
  readonly backoff?: BackoffOptions;
  /** Try to get a lost link back (default true). false: a lost link stays `down` until the bridge restarts. */
  readonly reconnect?: boolean;
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

/** How long each request waits for its reply, and how often it is re-sent. */
export interface RequestTiming {
  readonly ackTimeoutMs: number;
  readonly maxResends: number;
}

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
