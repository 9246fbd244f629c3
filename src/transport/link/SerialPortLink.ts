import type { SerialPort } from "serialport";
import { ArmbridgeError } from "../../errors.js";
import type { ByteLink } from "./ByteLink.js";
import { LinkListeners } from "./LinkListeners.js";

export const DEFAULT_BAUD_RATE = 115200;

/** A serial device (USB CDC, UART, or a PTY from socat) through serialport. */
export class SerialPortLink implements ByteLink {
  readonly url: string;
  private readonly path: string;
  private baudRate: number;
  private readonly listeners = new LinkListeners();
  private port: SerialPort | undefined;

  constructor(path: string, options: { baudRate?: number } = {}) {
    this.url = path;
    this.path = path;
    this.baudRate = options.baudRate ?? DEFAULT_BAUD_RATE;
  }

  get isOpen(): boolean {
    return this.port !== undefined;
  }

  async open(signal?: AbortSignal): Promise<void> {
    if (this.port) return;
    signal?.throwIfAborted();
    // Loaded on the first open: a TCP or RFC 2217 link (the simulator, ser2net) never needs serialport's native bindings.
    const { SerialPort } = await import("serialport");
    const port = new SerialPort({ path: this.path, baudRate: this.baudRate, autoOpen: false });
    await new Promise<void>((resolve, reject) => {
      port.open((error) => {
        if (error)
          reject(new ArmbridgeError("ARMB_ERR_LINK_OPEN", { link: this.url, reason: error.message }, { cause: error }));
        else resolve();
      });
    });
    if (signal?.aborted) {
      await closePort(port);
      throw new ArmbridgeError("ARMB_ERR_LINK_OPEN", { link: this.url, reason: "aborted" }, { cause: signal.reason });
    }
    let lastError: Error | undefined;
    port.on("data", (chunk: Buffer) => this.listeners.emitData(chunk));
    port.on("error", (error: Error) => {
      lastError = error;
    });
    // A USB adapter unplugged or a PTY whose other end went away closes the port with an error.
    port.once("close", (error: Error | null) => {
      if (this.port !== port) return;
      this.port = undefined;
      this.listeners.emitClose(error ?? lastError ?? new Error("port closed"));
    });
    this.port = port;
  }

  async close(): Promise<void> {
    const port = this.port;
    if (!port) return;
    this.port = undefined;
    await closePort(port);
    this.listeners.emitClose(undefined);
  }

  async setBaudRate(baud: number): Promise<void> {
    const port = this.port;
    if (!port) {
      this.baudRate = baud;
      return;
    }
    await new Promise<void>((resolve, reject) => {
      port.update({ baudRate: baud }, (error) => {
        if (error)
          reject(
            new ArmbridgeError("ARMB_ERR_LINK_BAUD", { link: this.url, baud, reason: error.message }, { cause: error }),
          );
        else resolve();
      });
    });
    this.baudRate = baud;
  }

  write(bytes: Uint8Array): void {
    this.port?.write(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  }

  onData(listener: (chunk: Uint8Array) => void): () => void {
    return this.listeners.onData(listener);
  }

  onClose(listener: (error: Error | undefined) => void): () => void {
    return this.listeners.onClose(listener);
  }
}

async function closePort(port: SerialPort): Promise<void> {
  if (!port.isOpen) return;
  await new Promise<void>((resolve) => {
    // A port that vanished may fail to close; it is gone either way.
    port.close(() => resolve());
  });
}
