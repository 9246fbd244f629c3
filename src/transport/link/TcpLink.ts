import { Socket } from "node:net";
import { ArmbridgeError } from "../../errors.js";
import type { ByteLink } from "./ByteLink.js";
import { LinkListeners } from "./LinkListeners.js";

/** A raw TCP byte stream to a device server (ser2net, firmware-sim `--link tcp`). */
export class TcpLink implements ByteLink {
  readonly url: string;
  private readonly host: string;
  private readonly port: number;
  private readonly listeners = new LinkListeners();
  private socket: Socket | undefined;

  constructor(url: string, host: string, port: number) {
    this.url = url;
    this.host = host;
    this.port = port;
  }

  get isOpen(): boolean {
    return this.socket !== undefined;
  }

  async open(signal?: AbortSignal): Promise<void> {
    if (this.socket) return;
    signal?.throwIfAborted();
    const socket = new Socket();
    await new Promise<void>((resolve, reject) => {
      const cleanup = (): void => {
        socket.off("connect", onConnect);
        socket.off("error", onError);
        signal?.removeEventListener("abort", onAbort);
      };
      const onConnect = (): void => {
        cleanup();
        resolve();
      };
      const onError = (error: Error): void => {
        cleanup();
        socket.destroy();
        reject(new ArmbridgeError("ARMB_ERR_LINK_OPEN", { link: this.url, reason: error.message }, { cause: error }));
      };
      const onAbort = (): void => {
        cleanup();
        socket.destroy();
        reject(
          new ArmbridgeError("ARMB_ERR_LINK_OPEN", { link: this.url, reason: "aborted" }, { cause: signal?.reason }),
        );
      };
      socket.once("connect", onConnect);
      socket.once("error", onError);
      signal?.addEventListener("abort", onAbort, { once: true });
      socket.connect(this.port, this.host);
    });
    // Frames are small and latency matters more than throughput.
    socket.setNoDelay(true);
    let lastError: Error | undefined;
    socket.on("data", (chunk: Buffer) => this.listeners.emitData(chunk));
    socket.on("error", (error: Error) => {
      lastError = error;
    });
    socket.once("close", () => {
      if (this.socket !== socket) return;
      this.socket = undefined;
      this.listeners.emitClose(lastError ?? new Error("connection closed by peer"));
    });
    this.socket = socket;
  }

  async close(): Promise<void> {
    const socket = this.socket;
    if (!socket) return;
    // Detach first so the close event is reported as ours, not as a loss.
    this.socket = undefined;
    await new Promise<void>((resolve) => {
      socket.once("close", () => resolve());
      socket.destroy();
    });
    this.listeners.emitClose(undefined);
  }

  write(bytes: Uint8Array): void {
    this.socket?.write(bytes);
  }

  onData(listener: (chunk: Uint8Array) => void): () => void {
    return this.listeners.onData(listener);
  }

  onClose(listener: (error: Error | undefined) => void): () => void {
    return this.listeners.onClose(listener);
  }
}
