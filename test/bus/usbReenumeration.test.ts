import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startBusSimulator, type RunningBusSimulator } from "../../firmware-sim/bus/startBusSimulator.js";
import { MemoryEffects } from "../../firmware-sim/EffectsLog.js";
import { socatOnPath } from "../../firmware-sim/simOptions.js";
import { silentLogger } from "../../src/observability/logger.js";
import { composeExecutor } from "../../src/bridge/composeExecutor.js";
import { IntentLedger } from "../../src/ledger/IntentLedger.js";
import { createDefaultTools } from "../../src/tools/defaultTools.js";
import { createServoBusTransport, type ServoBusTransport } from "../../src/transport/bus/index.js";
import type { BusProtocolName } from "../../src/protocol/bus/index.js";
import type { LinkState } from "../../src/transport/Transport.js";
import { busTestConfig } from "../support/busTestConfig.js";

// A USB-serial adapter that is unplugged and plugged in again (a bumped cable)
// vanishes from the OS and comes back as a new device node behind the same
// path (a udev symlink such as /dev/serial/by-id/…). Here socat plays the
// adapter: a PTY linked at a fixed path, joined to the bus simulator's TCP
// port. Killing socat removes the PTY; a new socat makes another PTY behind
// the same path. The bridge opens the path with serialport, as on hardware.
const runnable = socatOnPath();
if (!runnable) console.warn("USB re-enumeration test skipped: needs socat on PATH (apt-get install -y socat)");

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A PTY at `path` joined to 127.0.0.1:`port`, as a USB adapter plugged in; resolves once the path exists. */
async function plugIn(path: string, port: number): Promise<ChildProcess> {
  const socat = spawn("socat", [`pty,raw,echo=0,link=${path}`, `tcp:127.0.0.1:${port}`], { stdio: "ignore" });
  const exited = new Promise<void>((resolve) => socat.once("exit", () => resolve()));
  cleanups.push(async () => {
    if (socat.exitCode === null && socat.signalCode === null) socat.kill("SIGTERM");
    await exited;
  });
  const deadline = Date.now() + 5000;
  while (!existsSync(path)) {
    if (Date.now() > deadline) throw new Error(`socat made no PTY at ${path}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return socat;
}

async function unplug(socat: ChildProcess, path: string): Promise<void> {
  socat.kill("SIGTERM");
  const deadline = Date.now() + 5000;
  while (existsSync(path)) {
    if (Date.now() > deadline) throw new Error(`${path} still there after the adapter was unplugged`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function linkUntil(
  transport: ServoBusTransport,
  ok: (s: LinkState) => boolean,
  ms: number,
  what: string,
): Promise<LinkState> {
  const deadline = Date.now() + ms;
  for (;;) {
    const s = transport.linkState();
    if (ok(s)) return s;
    if (Date.now() > deadline) throw new Error(`link not ${what} within ${ms} ms: ${JSON.stringify(s)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe.skipIf(!runnable).each<BusProtocolName>(["feetech_sts", "dynamixel_2"])(
  "a %s bus behind a USB-serial adapter that re-enumerates on the same path (needs socat)",
  (protocol) => {
    it("reopens the path, finds the same servos, and drives them again; nothing moved while the adapter was gone", async () => {
      const config = busTestConfig(protocol, { observe: { budget_ms: 400, max_ms: 4000 } });
      const effects = new MemoryEffects();
      const sim: RunningBusSimulator = await startBusSimulator({
        bus: protocol,
        armConfig: config,
        link: "tcp",
        port: 0,
        seed: 5,
        effects,
        logger: silentLogger,
      });
      cleanups.push(() => sim.close());
      const port = Number(new URL(sim.link).port);
      const dir = mkdtempSync(join(tmpdir(), "armbridge-usb-"));
      cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
      const path = join(dir, "ttyUSB0");

      const first = await plugIn(path, port);
      const transport = createServoBusTransport(config, path);
      const ledger = IntentLedger.open(":memory:");
      const executor = composeExecutor({ config, registry: createDefaultTools(config), transport, ledger });
      cleanups.push(async () => {
        executor.close();
        await transport.close();
        ledger.close();
      });
      await transport.open(AbortSignal.timeout(5000));
      const joint = config.arm.joints[1]!;
      const starts = (): number => effects.events.filter((e) => e.event === "motion_start").length;

      const [before] = await executor.execute(
        [{ id: "before", name: "move_joints", args: { positions: { [joint.name]: joint.home + 0.2 } } }],
        { deadlineMs: 10_000 },
      );
      expect(before!.result.status, JSON.stringify(before!.result)).toBe("done");
      expect(starts()).toBe(1);

      await unplug(first, path);
      await linkUntil(transport, (s) => s.state === "reconnecting", 3000, "reconnecting");
      // Gone for a while: attempts fail (no such path), none writes anything anywhere.
      await new Promise((r) => setTimeout(r, 800));
      expect(transport.linkState().state).toBe("reconnecting");

      // A new PTY behind the path (the kernel may give it the old number, as ttyUSB0 comes back as ttyUSB0):
      // the descriptor the transport held is dead; only opening the path again reaches the servos.
      await plugIn(path, port);
      const back = await linkUntil(transport, (s) => s.state === "connected", 8000, "connected again");
      // The servos kept their power and torque: the same incarnation, nothing in flight.
      expect(back.last_loss).toMatchObject({ in_flight: [], incarnation_changed: false });
      expect(back.last_loss?.attempts).toBeGreaterThanOrEqual(1);
      expect(starts(), "nothing moved while the adapter was gone or when it came back").toBe(1);

      const [after] = await executor.execute(
        [{ id: "after", name: "move_joints", args: { positions: { [joint.name]: joint.home - 0.1 } } }],
        { deadlineMs: 10_000 },
      );
      expect(after!.result.status, JSON.stringify(after!.result)).toBe("done");
      const moves = effects.events.filter((e) => e.event === "motion_start");
      expect(moves).toHaveLength(2);
      expect(moves[1]).toMatchObject({ joints: [joint.name] });
    }, 60_000);
  },
);
