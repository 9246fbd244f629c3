import { SERIAL_TRANSPORT_DEFAULTS } from "./SerialTransportOptions.js";
import type { RequestChannel } from "./RequestChannel.js";

export interface SerialHeartbeatOptions {
  readonly channel: RequestChannel;
  /** Ends every PING in flight when the connection closes. */
  readonly lifetime: AbortSignal;
  /** A fixed period; undefined derives it from the device's watchdog. */
  readonly heartbeatMs: number | undefined;
  /** PINGs go out only while the link is connected. */
  readonly isConnected: () => boolean;
}

/** The PINGs that keep the device's watchdog fed while the link is up, one in flight at most. */
export class SerialHeartbeat {
  private readonly options: SerialHeartbeatOptions;
  private timer: NodeJS.Timeout | undefined;
  private pingInFlight = false;

  constructor(options: SerialHeartbeatOptions) {
    this.options = options;
  }

  start(watchdogMs: number): void {
    this.stop();
    const d = SERIAL_TRANSPORT_DEFAULTS;
    const period =
      this.options.heartbeatMs ??
      (watchdogMs > 0
        ? Math.min(d.heartbeatMaxMs, Math.max(d.heartbeatMinMs, Math.floor(watchdogMs * d.heartbeatFraction)))
        : d.heartbeatMaxMs);
    this.timer = setInterval(() => void this.ping(period), period);
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }

  private async ping(period: number): Promise<void> {
    if (this.pingInFlight || !this.options.isConnected()) return;
    this.pingInFlight = true;
    try {
      // A lost PING is not re-sent: the next period sends a fresh one.
      await this.options.channel.request(
        { op: "PING" },
        { signal: this.options.lifetime, maxResends: 0, ackTimeoutMs: period },
      );
    } finally {
      this.pingInFlight = false;
    }
  }
}
