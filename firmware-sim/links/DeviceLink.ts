/** The wire between the simulated device and a host: where the host connects, and how to tear it down. */
export interface DeviceLink {
  /** What the bridge opens: `tcp://127.0.0.1:PORT` or a PTY device path. */
  readonly url: string;
  close(): Promise<void>;
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
