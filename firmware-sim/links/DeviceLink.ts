/** The wire between the simulated device and a host: where the host connects, and how to tear it down. */
export interface DeviceLink {
  /** What the bridge opens: `tcp://127.0.0.1:PORT` or a PTY device path. */
  readonly url: string;
  close(): Promise<void>;
  /**
   * The wire goes away for `ms`, the device behind it running on: the host's
   * connection is dropped and new ones are refused until then, as when a USB
   * cable is pulled or a ser2net bridge restarts. Resolves once the wire is
   * gone; `onBack` is called with the epoch ms it listens again (benches
   * measure from there).
   */
  interrupt(ms: number, onBack?: (at: number) => void): Promise<void>;
}

/** The device side of a byte stream (DeviceSession). */
export interface ByteStreamEndpoint {
  attach(write: (bytes: Uint8Array) => void): void;
  detach(): void;
  receive(chunk: Uint8Array): void;
  /**
   * The host set the line's baud rate (an RFC 2217 SET-BAUDRATE): returns
   * the rate now in effect. Absent where the device does not model baud.
   */
  setLineBaud?(baud: number): number;
  /** The line's baud rate now, where the device models it. */
  lineBaud?(): number;
}
