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
}
