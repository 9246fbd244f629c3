import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import {
  startSimulator,
  type RunningSimulator,
  type StartSimulatorOptions,
} from "../../firmware-sim/startSimulator.js";
import { actuatorsOf } from "../../src/config/actuators.js";
import { loadConfig } from "../../src/config/loadConfig.js";
import { OP, cobsEncode, crc16CcittFalse } from "../../src/protocol/serial/index.js";
import { ManualClock } from "./ManualClock.js";
import { RawHost } from "./RawHost.js";
import { readEffects } from "./readEffects.js";

const AXES = actuatorsOf(loadConfig());
const PAN = AXES.findIndex((a) => a.name === "shoulder_pan");
const ELBOW = AXES.findIndex((a) => a.name === "elbow");

let sim: RunningSimulator | undefined;
let hosts: RawHost[] = [];
let dir: string | undefined;

async function start(options: StartSimulatorOptions = {}): Promise<{ host: RawHost; log: string }> {
  dir = mkdtempSync(join(tmpdir(), "armbridge-sim-test-"));
  const log = join(dir, "effects.jsonl");
  sim = await startSimulator({
    link: "tcp",
    port: 0,
    seed: 1,
    effectsLog: log,
    logger: pino({ level: "silent" }),
    ...options,
  });
  const host = await RawHost.connect(sim.link);
  hosts.push(host);
  return { host, log };
}

afterEach(async () => {
  for (const h of hosts) await h.close();
  hosts = [];
  await sim?.close();
  sim = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe("firmware-sim over TCP, raw frames", () => {
  it("answers HELLO_REQ with its identity, axes and limits", async () => {
    const { host } = await start({ statusHz: 50, watchdogMs: 700 });
    expect(sim!.link).toMatch(/^tcp:\/\/127\.0\.0\.1:\d+$/);
    const hello = await host.request({ op: "HELLO_REQ", seq: 9, hostVersion: "test" });
    expect(hello).toMatchObject({
      op: "HELLO",
      ackSeq: 9,
      protocolVersion: 1,
      statusRateHz: 50,
      watchdogMs: 700,
      bootId: sim!.arm.bootId,
    });
    if (hello.op !== "HELLO") throw new Error("expected HELLO");
    expect(hello.axes.map((a) => [a.name, a.kind])).toEqual(AXES.map((a) => [a.name, a.kind]));
    expect(hello.axes[PAN]!.max).toBe(Math.fround(AXES[PAN]!.max));
  });

  it("executes a MOVE: ACTION executing, STATUS reaches the target, effects log has start and end", async () => {
    const { host, log } = await start();
    const seq = host.seq();
    const reply = await host.request({
      op: "MOVE",
      seq,
      actionId: "act-1",
      expectBootId: sim!.arm.bootId,
      speed: 1,
      durationMs: 0,
      targets: [{ axis: PAN, position: 0.3 }],
    });
    expect(reply).toMatchObject({
      op: "ACTION",
      ackSeq: seq,
      record: { actionId: "act-1", state: "executing", moved: true },
    });
    const done = await host.status(
      (s) => s.actions.some((a) => a.actionId === "act-1" && a.state === "reached"),
      "STATUS with act-1 reached",
    );
    expect(done.axes[PAN]!.position).toBeCloseTo(0.3, 6);
    expect(done.axes[PAN]!.moving).toBe(false);
    const events = readEffects(log);
    expect(events.map((e) => e.event)).toEqual(["motion_start", "motion_end"]);
    expect(events[0]).toMatchObject({
      action_id: "act-1",
      joints: ["shoulder_pan"],
      from: { shoulder_pan: 0 },
      to: { shoulder_pan: Math.fround(0.3) },
    });
    expect(events[1]).toMatchObject({ action_id: "act-1", outcome: "reached", to: { shoulder_pan: Math.fround(0.3) } });
    expect(events[1]!.t).toBeGreaterThan(1e12);
  });

  it("refuses a duplicate MOVE (same action id, new seq) with the original record, and logs it", async () => {
    const { host, log } = await start();
    const move = {
      op: "MOVE" as const,
      actionId: "act-dup",
      expectBootId: sim!.arm.bootId,
      speed: 1,
      durationMs: 0,
      targets: [{ axis: PAN, position: 0.2 }],
    };
    await host.request({ ...move, seq: host.seq() });
    await host.status(
      (s) => s.actions.some((a) => a.actionId === "act-dup" && a.state === "reached"),
      "act-dup reached",
    );
    const again = await host.request({ ...move, seq: host.seq(), targets: [{ axis: PAN, position: -0.2 }] });
    expect(again).toMatchObject({ op: "ACTION", record: { actionId: "act-dup", state: "reached", moved: true } });
    const events = readEffects(log);
    expect(events.filter((e) => e.event === "motion_start")).toHaveLength(1);
    expect(events.filter((e) => e.event === "duplicate_refused")).toMatchObject([
      { action_id: "act-dup", joints: ["shoulder_pan"] },
    ]);
    expect(sim!.arm.positionsByName().shoulder_pan).toBeCloseTo(0.2, 6);
  });

  it("answers a repeated seq with the original reply, byte for byte, and does not act again", async () => {
    const { host, log } = await start();
    const move = {
      op: "MOVE" as const,
      seq: 40,
      actionId: "act-rep",
      expectBootId: sim!.arm.bootId,
      speed: 1,
      durationMs: 0,
      targets: [{ axis: ELBOW, position: 0.5 }],
    };
    const first = await host.request(move);
    await host.status(
      (s) => s.actions.some((a) => a.actionId === "act-rep" && a.state === "reached"),
      "act-rep reached",
    );
    const second = await host.request(move);
    expect(second).toEqual(first);
    expect(second).toMatchObject({ record: { state: "executing" } });
    expect(readEffects(log).map((e) => e.event)).toEqual(["motion_start", "motion_end"]);
  });

  it("voids an unknown action on QUERY_ACTION voidIfUnknown; a later MOVE with that id is NACKed VOIDED and nothing moves", async () => {
    const { host, log } = await start();
    const unknown = await host.request({
      op: "QUERY_ACTION",
      seq: host.seq(),
      actionId: "act-void",
      voidIfUnknown: false,
    });
    expect(unknown).toMatchObject({
      op: "ACTION",
      record: { actionId: "act-void", state: "unknown", moved: undefined },
    });
    const voided = await host.request({
      op: "QUERY_ACTION",
      seq: host.seq(),
      actionId: "act-void",
      voidIfUnknown: true,
    });
    expect(voided).toMatchObject({ op: "ACTION", record: { state: "voided", moved: false } });
    const move = await host.request({
      op: "MOVE",
      seq: host.seq(),
      actionId: "act-void",
      expectBootId: sim!.arm.bootId,
      speed: 1,
      durationMs: 0,
      targets: [{ axis: PAN, position: 1 }],
    });
    expect(move).toMatchObject({ op: "NACK", code: "VOIDED" });
    expect(readEffects(log).filter((e) => e.event === "motion_start")).toEqual([]);
    expect(sim!.arm.positionsByName().shoulder_pan).toBe(0);
  });

  it("resynchronises after garbage, drops a damaged frame silently and NACKs an unknown op", async () => {
    const { host } = await start();
    host.writeRaw(Buffer.from([0x13, 0x37, 0xff, 0x00, 0x42, 0x00]));
    const bad = Buffer.from(cobsEncode(Uint8Array.from([1, 5, 0, OP.PING, 0xde, 0xad])));
    host.writeRaw(Buffer.concat([bad, Buffer.from([0])]));
    const unknownOp = Uint8Array.from([1, 6, 0, 0x55, 0, 0]);
    const crc = crc16CcittFalse(unknownOp, 0, 4);
    unknownOp[4] = crc & 0xff;
    unknownOp[5] = crc >> 8;
    const nack = host.waitFor((m) => "ackSeq" in m && m.ackSeq === 6, "NACK for seq 6");
    host.writeRaw(Buffer.concat([Buffer.from(cobsEncode(unknownOp)), Buffer.from([0])]));
    expect(await nack).toMatchObject({ op: "NACK", code: "UNKNOWN_OP" });
    expect(await host.request({ op: "PING", seq: 7 })).toMatchObject({ op: "ACK", ackSeq: 7 });
    expect(host.received.some((m) => "ackSeq" in m && m.ackSeq === 5)).toBe(false);
  });

  it("serves one host at a time, like a UART", async () => {
    const { host } = await start();
    const second = await RawHost.connect(sim!.link);
    hosts.push(second);
    await second.whenClosed();
    expect(await host.request({ op: "PING", seq: 3 })).toMatchObject({ op: "ACK" });
  });

  it("STOP halts a motion mid-way; motion_end has outcome stopped and the positions really reached", async () => {
    const { host, log } = await start({ motionTime: { kind: "fixed", ms: 2000 } });
    await host.request({
      op: "MOVE",
      seq: host.seq(),
      actionId: "act-stop",
      expectBootId: sim!.arm.bootId,
      speed: 1,
      durationMs: 0,
      targets: [{ axis: PAN, position: 3 }],
    });
    await host.status((s) => s.axes[PAN]!.position > 0.05, "pan under way");
    expect(await host.request({ op: "STOP", seq: host.seq(), axes: [] })).toMatchObject({ op: "ACK" });
    const stopped = await host.status(
      (s) => s.actions.some((a) => a.actionId === "act-stop" && a.state === "stopped"),
      "act-stop stopped",
    );
    const end = readEffects(log).find((e) => e.event === "motion_end")!;
    expect(end.outcome).toBe("stopped");
    expect(end.to!.shoulder_pan).toBeGreaterThan(0.05);
    expect(end.to!.shoulder_pan).toBeLessThan(3);
    expect(stopped.axes[PAN]!.position).toBeCloseTo(end.to!.shoulder_pan!, 5);
  });

  it("a seeded reboot mid-motion changes bootId and forgets the action", async () => {
    const { host, log } = await start({ rebootRate: 1 });
    const hello = await host.request({ op: "HELLO_REQ", seq: host.seq(), hostVersion: "t" });
    const bootId = hello.op === "HELLO" ? hello.bootId : -1;
    await host.request({
      op: "MOVE",
      seq: host.seq(),
      actionId: "act-rb",
      expectBootId: sim!.arm.bootId,
      speed: 1,
      durationMs: 0,
      targets: [{ axis: PAN, position: 1 }],
    });
    const after = await host.status((s) => s.bootId !== bootId, "STATUS with a new bootId");
    expect(after.actions).toEqual([]);
    const query = await host.request({ op: "QUERY_ACTION", seq: host.seq(), actionId: "act-rb", voidIfUnknown: false });
    expect(query).toMatchObject({ record: { state: "unknown", moved: undefined } });
    expect(readEffects(log).map((e) => [e.event, e.outcome])).toEqual([
      ["motion_start", undefined],
      ["motion_end", "stopped"],
      ["reboot", undefined],
    ]);
  });
});

describe("firmware-sim over TCP with a stepped clock", () => {
  it("takes exactly the fixed motion time", async () => {
    const clock = new ManualClock();
    const { host } = await start({ clock, motionTime: { kind: "fixed", ms: 300 }, watchdogMs: 0 });
    await host.request({
      op: "MOVE",
      seq: host.seq(),
      actionId: "act-fixed",
      expectBootId: sim!.arm.bootId,
      speed: 1,
      durationMs: 0,
      targets: [{ axis: PAN, position: 2 }],
    });
    clock.advance(299);
    expect(
      await host.request({ op: "QUERY_ACTION", seq: host.seq(), actionId: "act-fixed", voidIfUnknown: false }),
    ).toMatchObject({ record: { state: "executing" } });
    clock.advance(1);
    expect(
      await host.request({ op: "QUERY_ACTION", seq: host.seq(), actionId: "act-fixed", voidIfUnknown: false }),
    ).toMatchObject({ record: { state: "reached" } });
  });

  it("the watchdog halts motion when the host falls silent, and not before", async () => {
    const clock = new ManualClock();
    const { host, log } = await start({ clock, motionTime: { kind: "fixed", ms: 5000 }, watchdogMs: 200 });
    await host.request({
      op: "MOVE",
      seq: host.seq(),
      actionId: "act-wd",
      expectBootId: sim!.arm.bootId,
      speed: 1,
      durationMs: 0,
      targets: [{ axis: PAN, position: 2 }],
    });
    clock.advance(150);
    await host.request({ op: "PING", seq: host.seq() });
    clock.advance(150);
    expect(sim!.arm.activeActionIds()).toEqual(["act-wd"]);
    const status = host.status(
      (s) => s.faults.includes("watchdog") && s.actions.some((a) => a.actionId === "act-wd" && a.state === "stopped"),
      "STATUS with the watchdog fault and act-wd stopped",
    );
    clock.advance(60);
    expect(sim!.arm.faults()).toEqual(["watchdog"]);
    clock.advance(2000);
    expect((await status).actions).toContainEqual({ actionId: "act-wd", state: "stopped", moved: true });
    const end = readEffects(log).find((e) => e.event === "motion_end");
    expect(end).toMatchObject({ action_id: "act-wd", outcome: "stopped" });
    expect(end!.to!.shoulder_pan).toBeLessThan(2);
  });
});
