import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Logger } from "pino";
import { SerialPort } from "serialport";
import type { ByteStreamEndpoint, DeviceLink } from "./DeviceLink.js";

/**
 * A real serial line on one machine: socat joins two PTYs. The simulator
 * opens DIR/dev with serialport, exactly as a bridge opens a USB-serial
 * adapter; the bridge is given DIR/tty. Needs `socat` on PATH.
 */
export async function startPtyLink(options: {
  readonly endpoint: ByteStreamEndpoint;
  readonly logger: Logger;
  /** Called when socat or the port dies on its own: the link is gone. */
  readonly onFatal: (reason: string) => void;
}): Promise<DeviceLink> {
  const { endpoint, logger } = options;
  const dir = mkdtempSync(join(tmpdir(), "armbridge-sim-"));
  const hostPath = join(dir, "tty");
  const devicePath = join(dir, "dev");
  let closing = false;
  const socat = spawn("socat", ["-d", "-d", `pty,raw,echo=0,link=${hostPath}`, `pty,raw,echo=0,link=${devicePath}`], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  try {
    await socatReady(socat);
  } catch (error) {
    socat.kill("SIGTERM");
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  socat.on("exit", (code, signal) => {
    if (!closing) options.onFatal(`socat exited (code ${code}, signal ${signal})`);
  });

  const port = new SerialPort({ path: devicePath, baudRate: 115200, autoOpen: false });
  await new Promise<void>((resolve, reject) => port.open((error) => (error ? reject(error) : resolve())));
  port.on("data", (chunk: Buffer) => endpoint.receive(chunk));
  port.on("error", (error) => logger.warn({ err: error.message }, "device port error"));
  port.on("close", () => {
    if (!closing) options.onFatal("device side of the PTY closed");
  });
  endpoint.attach((bytes) => {
    if (port.isOpen) port.write(Buffer.from(bytes));
  });
  logger.info({ host_path: hostPath, device_path: devicePath }, "PTY link ready");

  return {
    url: hostPath,
    async close() {
      closing = true;
      endpoint.detach();
      if (port.isOpen) await new Promise<void>((resolve) => port.close(() => resolve()));
      if (socat.exitCode === null && socat.signalCode === null) {
        const exited = new Promise<void>((resolve) => socat.once("exit", () => resolve()));
        socat.kill("SIGTERM");
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
    interrupt() {
      // socat ends when either PTY closes: a PTY pair cannot be cut and rejoined on the same path.
      return Promise.reject(new Error("a link interruption needs --link tcp; a PTY pair cannot be cut and rejoined"));
    },
  };
}

/** socat says "starting data transfer loop" once both PTYs and their links exist. */
function socatReady(socat: ChildProcess): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let text = "";
    const onData = (chunk: Buffer): void => {
      text = (text + chunk.toString("utf8")).slice(-4000);
      if (text.includes("starting data transfer loop")) {
        cleanup();
        resolve();
      }
    };
    const onExit = (code: number | null): void => {
      cleanup();
      reject(new Error(`socat exited (code ${code}) before the PTYs were ready: ${text.trim()}`));
    };
    const onError = (error: Error): void => {
      cleanup();
      reject(new Error(`cannot run socat: ${error.message}`));
    };
    const cleanup = (): void => {
      socat.stderr?.off("data", onData);
      socat.off("exit", onExit);
      socat.off("error", onError);
      // Keep draining socat's stderr so it never blocks on a full pipe.
      socat.stderr?.resume();
    };
    socat.stderr?.on("data", onData);
    socat.once("exit", onExit);
    socat.once("error", onError);
  });
}
