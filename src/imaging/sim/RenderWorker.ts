import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { encodeImage } from "../encodeImage.js";
import { drawJob } from "./drawJob.js";
import type { RenderJob, RenderReply } from "./RenderJob.js";

export interface Rendered {
  readonly bytes: Buffer;
  readonly width: number;
  readonly height: number;
}

/** esbuild's one call used here, typed locally: it is a devDependency, loaded only when the sources run as TypeScript. */
type EsbuildBuild = (options: Record<string, unknown>) => Promise<unknown>;
const ESBUILD = "esbuild";

/**
 * Draws and encodes the simulated camera's pictures on a worker thread. A
 * picture costs hundreds of ms of CPU on a busy machine; drawn on the event
 * loop, a burst of them held up the bridge's link to the arm until the
 * firmware's watchdog stopped the motion. One worker per process, started on
 * first use and unref'd (it never keeps a process alive); jobs queue on it
 * in order. Where no worker can start, the job is drawn in this thread.
 */
export class RenderWorker {
  #worker: Promise<Worker | undefined> | undefined;
  readonly #pending = new Map<number, { resolve: (r: Rendered) => void; reject: (e: Error) => void }>();
  #nextId = 1;

  async render(job: Omit<RenderJob, "id">): Promise<Rendered> {
    const worker = await (this.#worker ??= this.#start());
    if (!worker) return renderHere(job);
    const id = this.#nextId++;
    return new Promise<Rendered>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      worker.postMessage({ ...job, id } satisfies RenderJob);
    });
  }

  async #start(): Promise<Worker | undefined> {
    let worker: Worker;
    let bundleDir: string | undefined;
    try {
      const here = import.meta.url;
      if (here.endsWith(".js")) {
        worker = new Worker(new URL("./renderWorkerEntry.js", here));
      } else {
        // The TypeScript sources (vitest): Node 20 cannot run TS in a worker, so its entry is bundled first (esbuild, a devDependency wherever the sources run).
        const { build } = (await import(ESBUILD)) as { build: EsbuildBuild };
        bundleDir = mkdtempSync(join(tmpdir(), "armbridge-render-"));
        const outfile = join(bundleDir, "renderWorkerEntry.cjs");
        await build({
          entryPoints: [fileURLToPath(new URL("./renderWorkerEntry.ts", here))],
          bundle: true,
          platform: "node",
          format: "cjs",
          outfile,
          logLevel: "silent",
        });
        worker = new Worker(pathToFileURL(outfile));
      }
    } catch {
      if (bundleDir) rmSync(bundleDir, { recursive: true, force: true });
      return undefined;
    }
    if (bundleDir) {
      // Its first answer means its module is loaded ("online" comes before an ES module entry is read).
      const dir = bundleDir;
      const remove = (): void => rmSync(dir, { recursive: true, force: true });
      worker.once("message", remove);
      worker.once("exit", remove);
    }
    worker.on("message", (reply: RenderReply) => this.#settle(reply));
    const fail = (error: Error): void => {
      // A dead worker fails what it held; the next job starts a new one.
      this.#worker = undefined;
      for (const p of this.#pending.values()) p.reject(error);
      this.#pending.clear();
    };
    worker.once("error", fail);
    worker.once("exit", (code) => fail(new Error(`the render worker exited (code ${code})`)));
    // Last: a "message" listener refs the worker's port again, so an unref before the listeners
    // were attached left the port holding every process that had drawn a picture open at its end.
    worker.unref();
    return worker;
  }

  #settle(reply: RenderReply): void {
    const pending = this.#pending.get(reply.id);
    if (!pending) return;
    this.#pending.delete(reply.id);
    if (reply.ok)
      pending.resolve({
        bytes: Buffer.from(reply.bytes.buffer, reply.bytes.byteOffset, reply.bytes.byteLength),
        width: reply.width,
        height: reply.height,
      });
    else pending.reject(new Error(reply.message));
  }
}

function renderHere(job: Omit<RenderJob, "id">): Rendered {
  const image = drawJob(job);
  return { bytes: encodeImage(image, job.view.format, job.view.jpegQuality), width: image.width, height: image.height };
}

/** The process's one render worker. */
export const RENDER_WORKER = new RenderWorker();
