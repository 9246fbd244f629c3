import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { SerialPort } from "serialport";
import { describe, expect, it } from "vitest";
import { socatOnPath } from "../../firmware-sim/simOptions.js";
import { startSimulator } from "../../firmware-sim/startSimulator.js";
import { FrameDecoder, encodeFrame, type Message } from "../../src/protocol/serial/index.js";
import { readEffects } from "./readEffects.js";

const haveSocat = socatOnPath();
if (!haveSocat) console.warn("firmware-sim PTY test skipped: socat is not on PATH (apt-get install -y socat)");

describe("firmware-sim over a socat PTY pair", () => {
  it.skipIf(!haveSocat)(
    "speaks the protocol over a real serial device path (skipped when socat is missing)",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "armbridge-sim-pty-test-"));
      const log = join(dir, "effects.jsonl");
      const sim = await startSimulator({
        link: "pty",
        seed: 1,
        effectsLog: log,
        motionTime: { kind: "fixed", ms: 100 },
        logger: pino({ level: "silent" }),
      });
      const port = new SerialPort({ path: sim.link, baudRate: 115200, autoOpen: false });
      try {
        expect(sim.link).toMatch(/armbridge-sim-[^/]+\/tty$/);
        await new Promise<void>((resolve, reject) => port.open((e) => (e ? reject(e) : resolve())));
        const decoder = new FrameDecoder();
        const seen: Message[] = [];
        const waiters: { match: (m: Message) => boolean; resolve: (m: Message) => void }[] = [];
        port.on("data", (chunk: Buffer) => {
          for (const r of decoder.push(chunk)) {
            if (!r.ok) continue;
            seen.push(r.message);
            for (const w of waiters.filter((x) => x.match(r.message))) {
              waiters.splice(waiters.indexOf(w), 1);
              w.resolve(r.message);
            }
          }
        });
        const waitFor = (match: (m: Message) => boolean, what: string): Promise<Message> =>
          new Promise<Message>((resolve, reject) => {
            const guard = setTimeout(() => reject(new Error(`guard: no ${what}`)), 5000);
            waiters.push({ match, resolve: (m) => (clearTimeout(guard), resolve(m)) });
          });

        const hello = waitFor((m) => m.op === "HELLO" && m.ackSeq === 1, "HELLO");
        port.write(encodeFrame({ op: "HELLO_REQ", seq: 1, hostVersion: "pty-test" }));
        const helloMessage = await hello;
        expect(helloMessage).toMatchObject({ op: "HELLO", protocolVersion: 1 });
        const bootId = helloMessage.op === "HELLO" ? helloMessage.bootId : 0;

        const reached = waitFor(
          (m) => m.op === "STATUS" && m.actions.some((a) => a.actionId === "pty-1" && a.state === "reached"),
          "pty-1 reached",
        );
        port.write(
          encodeFrame({
            op: "MOVE",
            seq: 2,
            actionId: "pty-1",
            expectBootId: bootId,
            speed: 1,
            durationMs: 0,
            targets: [{ axis: 0, position: 0.25 }],
          }),
        );
        const status = await reached;
        expect(status.op === "STATUS" && status.axes[0]!.position).toBeCloseTo(0.25, 6);
        expect(seen.find((m) => m.op === "ACTION")).toMatchObject({ ackSeq: 2, record: { actionId: "pty-1" } });
        expect(readEffects(log).map((e) => e.event)).toEqual(["motion_start", "motion_end"]);

        // A bridge that reconnects reopens the same path; the line (and the device's memory) is still there.
        await new Promise<void>((resolve) => port.close(() => resolve()));
        decoder.reset();
        await new Promise<void>((resolve, reject) => port.open((e) => (e ? reject(e) : resolve())));
        const again = waitFor((m) => m.op === "ACTION" && m.ackSeq === 3, "ACTION for the re-sent MOVE");
        port.write(
          encodeFrame({
            op: "MOVE",
            seq: 3,
            actionId: "pty-1",
            expectBootId: bootId,
            speed: 1,
            durationMs: 0,
            targets: [{ axis: 0, position: 0.25 }],
          }),
        );
        expect(await again).toMatchObject({ record: { actionId: "pty-1", state: "reached" } });
        expect(readEffects(log).map((e) => e.event)).toEqual(["motion_start", "motion_end", "duplicate_refused"]);
      } finally {
        if (port.isOpen) await new Promise<void>((resolve) => port.close(() => resolve()));
        await sim.close();
        rmSync(dir, { recursive: true, force: true });
      }
      expect(existsSync(sim.link)).toBe(false);
    },
  );
});
