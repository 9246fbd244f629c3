import type { Logger } from "pino";
import type { BackoffOptions } from "../link/ExponentialBackoff.js";

export interface ServoBusTransportOptions {
  readonly logger?: Logger;
  /** How long to wait for a servo's reply (ms) beyond the bytes' own wire time. */
  readonly replyMarginMs?: number;
  /** The bus baud rate, for reply deadlines (the config's bus.baud). */
  readonly baud?: number;
  /** How often a failed read is tried again before giving up on it. */
  readonly readAttempts?: number;
  readonly now?: () => number;
  /** Longest gap between reads of an alert-gated health block (StatusSchedule, HEALTH_PERIOD_MS). */
  readonly healthPeriodMs?: number;
  /** How often temperature, voltage and the servos' own limits are read (BusStatusLoop, CONDITION_PERIOD_MS). */
  readonly conditionPeriodMs?: number;
  /** Delays between reconnection attempts. Default 100 ms doubling to 2 s, half jittered. */
  readonly backoff?: BackoffOptions;
  /** Try to get a lost bus back (default true). false: a lost bus stays `down` until the bridge restarts. */
  readonly reconnect?: boolean;
  /** Longest one reconnection attempt may take (reopen, ping, read, arm). Default 3000 ms. */
  readonly attemptTimeoutMs?: number;
}
