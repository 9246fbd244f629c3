import { ArmbridgeError } from "../../../errors.js";
import type { ByteLink } from "./ByteLink.js";
import { LinkListeners } from "./LinkListeners.js";

/**
 * The device side of an in-memory link: what a scripted device or a test
 * sees. It can make the line vanish (`drop`) and refuse reconnection
 * (`available = false`), as an unplugged USB adapter does.
 */
export interface MemoryDeviceEnd {
  /** Bytes from the device to the host; dropped while the host end is closed. */
  write(bytes: Uint8Array): void;
  /** Called with every chunk the host writes. Returns an unsubscribe function. */
  onData(listener: (chunk: Uint8Array) => void): () => void;
  /** Called whenever the host end opens (first open and every reconnection). */
  onOpen(listener: () => void): () => void;
  /** Closes the host end with an error, as if the port disappeared. */
  drop(reason?: string): void;
  /** While false, the host's open() fails with ARMB_ERR_LINK_OPEN. */
  available: boolean;
  readonly hostIsOpen: boolean;
}

/** The host side: a ByteLink whose other end is a `MemoryDeviceEnd`. */
class MemoryHostLink implements ByteLink {
  readonly url: string;
  readonly listeners = new LinkListeners();
  open_ = false;

  constructor(
    url: string,
    private readonly pair: MemoryLinkPairState,
  ) {
    this.url = url;
  }

  get isOpen(): boolean {
    return this.open_;
  }

  async open(signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    if (this.open_) return;
    if (!this.pair.device.available) throw new ArmbridgeError("ARMB_ERR_LINK_OPEN", { link: this.url, reason: "device not present" });
    this.open_ = true;
    for (const listener of [...this.pair.openListeners]) listener();
  }

  async close(): Promise<void> {
    if (!this.open_) return;
    this.open_ = false;
    this.listeners.emitClose(undefined);
  }

  write(bytes: Uint8Array): void {
    if (!this.open_) return;
    const copy = Uint8Array.from(bytes);
    // Asynchronous like a real wire, so no reply can arrive inside write().
    setImmediate(() => {
      for (const listener of [...this.pair.deviceData]) listener(copy);
    });
  }

  onData(listener: (chunk: Uint8Array) => void): () => void {
    return this.listeners.onData(listener);
  }

  onClose(listener: (error: Error | undefined) => void): () => void {
    return this.listeners.onClose(listener);
  }
}

interface MemoryLinkPairState {
  device: MemoryDeviceEnd;
  deviceData: Set<(chunk: Uint8Array) => void>;
  openListeners: Set<() => void>;
}

/** A host ByteLink wired to a device end in the same process: for scripted devices in tests and demos. */
export function createMemoryLinkPair(url = "memory://device"): { host: ByteLink; device: MemoryDeviceEnd } {
  const state: MemoryLinkPairState = {
    device: undefined as unknown as MemoryDeviceEnd,
    deviceData: new Set(),
    openListeners: new Set(),
  };
  const host = new MemoryHostLink(url, state);
  state.device = {
    available: true,
    get hostIsOpen() {
      return host.open_;
    },
    write(bytes) {
      if (!host.open_) return;
      const copy = Uint8Array.from(bytes);
      setImmediate(() => {
        if (host.open_) host.listeners.emitData(copy);
      });
    },
    onData(listener) {
      state.deviceData.add(listener);
      return () => state.deviceData.delete(listener);
    },
    onOpen(listener) {
      state.openListeners.add(listener);
      return () => state.openListeners.delete(listener);
    },
    drop(reason = "device disappeared") {
      if (!host.open_) return;
      host.open_ = false;
      host.listeners.emitClose(new Error(reason));
    },
  };
  return { host, device: state.device };
}
