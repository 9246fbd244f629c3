/**
 * A byte pipe to the device: a serial port, a TCP socket (ser2net style) or
 * an in-memory pair. It knows nothing of frames. One instance may be opened
 * again after it closed, which is how the transport reconnects without
 * rebuilding its state.
 */
export interface ByteLink {
  /** The link as the user named it, for logs and errors. */
  readonly url: string;

  /** Opens the link; rejects with ARMB_ERR_LINK_OPEN. Opening an open link is a no-op. */
  open(signal?: AbortSignal): Promise<void>;

  /** Closes the link; idempotent. Fires the close listeners with `undefined` (closed by us). */
  close(): Promise<void>;

  /** Queues bytes for the device. Bytes written while closed are dropped, as on a real wire. */
  write(bytes: Uint8Array): void;

  /** Called with every chunk received. Returns an unsubscribe function. */
  onData(listener: (chunk: Uint8Array) => void): () => void;

  /**
   * Called once each time an open link closes: with the error when the port
   * disappeared or the peer hung up, with `undefined` when `close()` closed it.
   */
  onClose(listener: (error: Error | undefined) => void): () => void;

  readonly isOpen: boolean;

  /**
   * Changes the line's baud rate while open (a serial device, an RFC 2217
   * server); rejects with ARMB_ERR_LINK_BAUD when the line refuses. Absent
   * where the host cannot set it: a raw TCP stream, whose baud is set at the
   * server (ser2net raw mode).
   */
  setBaudRate?(baud: number, signal?: AbortSignal): Promise<void>;
}
