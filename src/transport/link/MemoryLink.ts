import { ArmbridgeError } from "../../errors.js";
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
  /** Called with every chunk the host writes (one chunk per host write). Returns an unsubscribe function. */
  onData(listener: (chunk: Uint8Array) => void): () => void;
  /** Called whenever the host end opens (first open and every reconnection). */
  onOpen(listener: () => void): () => void;
  /** Closes the host end with an error, as if the port disappeared. */
  drop(reason?: string): void;
  /** While false, the host's open() fails with ARMB_ERR_LINK_OPEN. */
  available: boolean;
  readonly hostIsOpen: boolean;
}

/** Both ends share this: the host's listeners, the device's listeners, and whether the line is up. */
class MemoryLine {
  open = false;
  available = true;
  readonly host = new LinkListeners();
  readonly deviceData = new Set<(chunk: Uint8Array) => void>();
  readonly deviceOpen = new Set<() => void>();
}

class MemoryHostLink implements ByteLink {
  constructor(
    readonly url: string,
    private readonly line: MemoryLine,
  ) {}

  get isOpen(): boolean {
    return this.line.open;
  }

  async open(signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    if (this.line.open) return;
    if (!this.line.available)
      throw new ArmbridgeError("ARMB_ERR_LINK_OPEN", { link: this.url, reason: "device not present" });
    this.line.open = true;
    for (const listener of [...this.line.deviceOpen]) listener();
  }

  async close(): Promise<void> {
    if (!this.line.open) return;
    this.line.open = false;
    this.line.host.emitClose(undefined);
  }

  write(bytes: Uint8Array): void {
    if (!this.line.open) return;
    const copy = Uint8Array.from(bytes);
    // Asynchronous like a real wire, so no reply can arrive inside write().
    setImmediate(() => {
      for (const listener of [...this.line.deviceData]) listener(copy);
    });
  }

  onData(listener: (chunk: Uint8Array) => void): () => void {
    return this.line.host.onData(listener);
  }

  onClose(listener: (error: Error | undefined) => void): () => void {
    return this.line.host.onClose(listener);
  }
}

class MemoryDeviceEndImpl implements MemoryDeviceEnd {
  constructor(private readonly line: MemoryLine) {}

  get available(): boolean {
    return this.line.available;
  }

  set available(value: boolean) {
    this.line.available = value;
  }

  get hostIsOpen(): boolean {
    return this.line.open;
  }

  write(bytes: Uint8Array): void {
    if (!this.line.open) return;
    const copy = Uint8Array.from(bytes);
    setImmediate(() => {
      if (this.line.open) this.line.host.emitData(copy);
    });
  }

  onData(listener: (chunk: Uint8Array) => void): () => void {
    this.line.deviceData.add(listener);
    return () => this.line.deviceData.delete(listener);
  }

  onOpen(listener: () => void): () => void {
    this.line.deviceOpen.add(listener);
    return () => this.line.deviceOpen.delete(listener);
  }

  drop(reason = "device disappeared"): void {
    if (!this.line.open) return;
    this.line.open = false;
    this.line.host.emitClose(new Error(reason));
  }
}

/** A host ByteLink wired to a device end in the same process: for scripted devices in tests and demos. */
export function createMemoryLinkPair(url = "memory://device"): { host: ByteLink; device: MemoryDeviceEnd } {
  const line = new MemoryLine();
  return { host: new MemoryHostLink(url, line), device: new MemoryDeviceEndImpl(line) };
}
