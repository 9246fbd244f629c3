import { readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import WebSocket from "ws";

/** process.memoryUsage() of the inspected process, in bytes. */
export interface MemoryUsage {
  readonly rss: number;
  readonly heapTotal: number;
  readonly heapUsed: number;
  readonly external: number;
  readonly arrayBuffers: number;
}

interface Reply {
  readonly id: number;
  readonly result?: { readonly result?: { readonly value?: unknown } };
  readonly error?: { readonly message: string };
}

/**
 * A Chrome DevTools Protocol session with a child process started with
 * `--inspect=127.0.0.1:0`. The bench uses it to force a full garbage
 * collection inside the bridge (HeapProfiler.collectGarbage) and read
 * process.memoryUsage() there (Runtime.evaluate), so the product needs no
 * debug route and the figure is the live heap, not pages V8 or the allocator
 * kept after growing into them.
 *
 * Protocol: https://chromedevtools.github.io/devtools-protocol/v8/HeapProfiler/#method-collectGarbage
 * and https://chromedevtools.github.io/devtools-protocol/v8/Runtime/#method-evaluate;
 * Node's announcement line "Debugger listening on ws://…" is what
 * https://nodejs.org/api/cli.html#--inspecthostport documents for port 0.
 */
export class InspectorProbe {
  readonly #socket: WebSocket;
  readonly #pending = new Map<number, (reply: Reply) => void>();
  #nextId = 1;

  private constructor(socket: WebSocket) {
    this.#socket = socket;
    socket.on("message", (data: Buffer) => {
      const reply = JSON.parse(data.toString("utf8")) as Partial<Reply>;
      if (typeof reply.id !== "number") return; // an event, not an answer
      this.#pending.get(reply.id)?.(reply as Reply);
      this.#pending.delete(reply.id);
    });
  }

  /** Finds the inspector's URL in the child's stderr log (written before its ready line) and connects. */
  static async fromLog(logFile: string, timeoutMs: number): Promise<InspectorProbe> {
    const until = performance.now() + timeoutMs;
    let url: string | undefined;
    while (url === undefined) {
      const text = readFileSync(logFile, "utf8");
      // The last announcement: the log is appended to across runs.
      const all = [...text.matchAll(/Debugger listening on (ws:\/\/127\.0\.0\.1:\d+\/[0-9a-f-]+)/g)];
      url = all.at(-1)?.[1];
      if (url !== undefined) break;
      if (performance.now() > until)
        throw new Error(`no "Debugger listening on ws://…" line in ${logFile} within ${timeoutMs} ms`);
      await sleep(20);
    }
    const socket = new WebSocket(url);
    await new Promise<void>((resolve, reject) => {
      socket.once("open", () => resolve());
      socket.once("error", reject);
    });
    return new InspectorProbe(socket);
  }

  /** A full, synchronous collection in the child, then its process.memoryUsage(). */
  async heapAfterGc(): Promise<MemoryUsage> {
    await this.#call("HeapProfiler.collectGarbage", {});
    return this.memoryUsage();
  }

  /** The child's process.memoryUsage() as it stands, garbage included. */
  async memoryUsage(): Promise<MemoryUsage> {
    const reply = await this.#call("Runtime.evaluate", {
      expression: "JSON.stringify(process.memoryUsage())",
      returnByValue: true,
    });
    const value = reply.result?.result?.value;
    if (typeof value !== "string") throw new Error(`Runtime.evaluate returned no string: ${JSON.stringify(reply)}`);
    return JSON.parse(value) as MemoryUsage;
  }

  close(): void {
    this.#socket.close();
  }

  #call(method: string, params: object): Promise<Reply> {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new Error(`inspector: no answer to ${method} within 30 s`));
      }, 30_000);
      this.#pending.set(id, (reply) => {
        clearTimeout(timer);
        if (reply.error) reject(new Error(`inspector: ${method}: ${reply.error.message}`));
        else resolve(reply);
      });
      this.#socket.send(JSON.stringify({ id, method, params }));
    });
  }
}
