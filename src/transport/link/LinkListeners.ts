/** Listener bookkeeping shared by the ByteLink implementations. */
export class LinkListeners {
  private readonly data = new Set<(chunk: Uint8Array) => void>();
  private readonly close = new Set<(error: Error | undefined) => void>();

  onData(listener: (chunk: Uint8Array) => void): () => void {
    this.data.add(listener);
    return () => this.data.delete(listener);
  }

  onClose(listener: (error: Error | undefined) => void): () => void {
    this.close.add(listener);
    return () => this.close.delete(listener);
  }

  emitData(chunk: Uint8Array): void {
    for (const listener of [...this.data]) listener(chunk);
  }

  emitClose(error: Error | undefined): void {
    for (const listener of [...this.close]) listener(error);
  }
}
