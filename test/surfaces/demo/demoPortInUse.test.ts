import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer, type AddressInfo, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { socatAvailable } from "../../../firmware-sim/spawnSimulator.js";
import { CLI, runCli, SIM } from "../cli/processes.js";

// `armbridge demo` binds its HTTP port first, as `serve` does: a taken port is
// ARMB_ERR_HTTP_PORT_IN_USE with a hint, said before a simulator (and its
// socat) is started or a byte goes to an arm given with --serial.
const built = existsSync(CLI) && existsSync(SIM);
if (!built) console.warn(`skipping demo port-in-use: ${CLI} or ${SIM} is missing; run \`npm run build\` first`);
const link = socatAvailable() ? "pty" : "tcp";

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)));
}

/** Live processes whose command line mentions `needle` (Linux /proc): a child left behind names its data folder. */
function processesMentioning(needle: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(needle)) found.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

describe.skipIf(!built)("armbridge demo: a taken HTTP port (needs dist: npm run build)", () => {
  let dir: string;
  let taken: Server;
  let takenPort: number;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "armbridge-demo-port-"));
    taken = createServer();
    takenPort = await listen(taken);
  });
  afterAll(() => {
    taken.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it(`is its own coded error with a hint, and no simulator or socat is started (link ${link})`, async () => {
    const data = join(dir, "sim");
    const r = await runCli([
      "demo",
      "--link",
      link,
      "--exit-after-session",
      "--http",
      `127.0.0.1:${takenPort}`,
      "--data",
      data,
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("ARMB_ERR_HTTP_PORT_IN_USE");
    expect(r.stderr).toContain("--http 127.0.0.1:0");
    expect(r.stdout).not.toContain("firmware-sim (pid");
    // firmware-sim writes both at start; neither exists when it never ran.
    expect(existsSync(join(data, "firmware-sim.log"))).toBe(false);
    expect(existsSync(join(data, "effects.jsonl"))).toBe(false);
    expect(processesMentioning(data)).toEqual([]);
  }, 60_000);

  it("with --serial, before any byte goes to the arm", async () => {
    // A "device" that only counts who connects: the demo must not get that far.
    let deviceConnections = 0;
    const device = createServer((socket) => {
      deviceConnections++;
      socket.destroy();
    });
    const devicePort = await listen(device);
    try {
      const r = await runCli([
        "demo",
        "--serial",
        `tcp://127.0.0.1:${devicePort}`,
        "--exit-after-session",
        "--http",
        `127.0.0.1:${takenPort}`,
        "--data",
        join(dir, "serial"),
      ]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("ARMB_ERR_HTTP_PORT_IN_USE");
      expect(deviceConnections).toBe(0);
    } finally {
      device.close();
    }
  }, 60_000);
});
