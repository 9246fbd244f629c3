import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../../src/config/loadConfig.js";
import { isArmbridgeError } from "../../../src/errors.js";
import type { SerialTransport } from "../../../src/transport/serial/SerialTransport.js";
import { type SerialTransportOptions } from "../../../src/transport/serial/SerialTransport.js";
import { encodeFrame } from "../../../src/protocol/serial/index.js";
import type { MotionEnd } from "../../../src/transport/Transport.js";
import type { ScriptedDevice } from "./ScriptedDevice.js";
import { scriptedRig, sleep, until } from "./scriptedRig.js";

const config = loadConfig();
const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function setup(options: SerialTransportOptions = {}): { device: ScriptedDevice; transport: SerialTransport } {
  return scriptedRig(config, cleanups, { transport: options });
}

const move = (actionId: string, targets: Record<string, number> = { elbow: 0.5 }) => ({
  actionId,
  targets,
  speed: 0.5,
});

describe("SerialTransport against a scripted device", () => {
  it("shakes hands, names the axes from HELLO and stamps statuses with the local clock", async () => {
    const { transport, device } = setup({ now: () => 1234 });
    await transport.open();
    expect(device.framesOf("HELLO_REQ")).toHaveLength(1);
    expect(transport.device?.axes).toEqual(device.axes.map((a) => a.name));
    const status = transport.latestStatus();
    expect(status?.stampMs).toBe(1234);
    expect(Object.keys(status?.axes ?? {})).toEqual(device.axes.map((a) => a.name));
    expect(status?.axes.elbow?.position).toBe(1.0);
  });

  it("refuses a device whose axes do not match the config", async () => {
    const { transport, device } = setup();
    device.axes = device.axes.filter((a) => a.name !== "wrist_3");
    const error: unknown = await transport.open().catch((e: unknown) => e);
    expect(isArmbridgeError(error, "ARMB_ERR_DEVICE_MISMATCH")).toBe(true);
  });

  it("refuses a device with the same count but other names", async () => {
    const { transport, device } = setup();
    device.axes = device.axes.map((a) => (a.name === "elbow" ? { ...a, name: "elbow_x" } : a));
    const error: unknown = await transport.open().catch((e: unknown) => e);
    expect(isArmbridgeError(error, "ARMB_ERR_DEVICE_MISMATCH")).toBe(true);
  });

  it("addresses each MOVE to the newest boot it knows: HELLO's, then the one a STATUS reported after a reboot", async () => {
    const { transport, device } = setup();
    device.bootId = 41;
    await transport.open();
    const first = transport.runMotion(move("a-boot-1"), AbortSignal.timeout(5000));
    await until(() => device.records.has("a-boot-1"), "first MOVE heard");
    expect(device.framesOf("MOVE")[0]!.message.expectBootId).toBe(41);
    device.reboot();
    expect(await first).toMatchObject({ kind: "link_error", error: { code: "ARMB_ERR_DEVICE_REBOOTED" } });
    const second = transport.runMotion(move("a-boot-2"), AbortSignal.timeout(5000));
    await until(() => device.records.has("a-boot-2"), "second MOVE heard");
    expect(device.framesOf("MOVE")[1]!.message.expectBootId).toBe(42);
    device.finish("a-boot-2", "reached");
    expect(await second).toMatchObject({ kind: "ended", record: { state: "reached" } });
    expect(device.bootMismatches).toEqual([]);
  });

  it("maps NACK BOOT_MISMATCH on the only copy sent to refused: that copy was the command, and it did not run", async () => {
    const { transport, device } = setup();
    await transport.open();
    // A device that rebooted unseen: the host still believes boot 1.
    device.streamStatus = false;
    device.reboot();
    const end = await transport.runMotion(move("a-unseen"), AbortSignal.timeout(5000));
    // (A resent copy refused this way is link_error instead: see test/serial/transport/resendAfterReboot.test.ts.)
    expect(end).toMatchObject({ kind: "refused", error: { code: "ARMB_ERR_MOTION_REFUSED" } });
    expect(device.bootMismatches).toEqual(["a-unseen"]);
    expect(device.executions.has("a-unseen")).toBe(false);
  });

  it("re-sends the very same bytes when a MOVE reply is lost, and the motion runs once", async () => {
    const { transport, device } = setup();
    await transport.open();
    device.loseReplies.set("MOVE", 2);
    const ended = transport.runMotion(move("a-lost"), AbortSignal.timeout(10_000));
    await until(() => device.framesOf("MOVE").length === 3, "third MOVE send");
    await until(() => device.records.get("a-lost") !== undefined, "record");
    device.finish("a-lost", "reached");
    const end = await ended;
    expect(end).toMatchObject({ kind: "ended", record: { actionId: "a-lost", state: "reached", moved: true } });
    const moves = device.framesOf("MOVE");
    expect(moves).toHaveLength(3);
    for (const frame of moves) expect(Buffer.from(frame.bytes).equals(Buffer.from(moves[0]!.bytes))).toBe(true);
    expect(new Set(moves.map((f) => f.message.seq)).size).toBe(1);
    expect(device.executions.get("a-lost")).toBe(1);
  });

  it("ignores a duplicated reply and an unsolicited stale reply", async () => {
    const { transport, device } = setup();
    await transport.open();
    const ended = transport.runMotion(move("a-dup"), AbortSignal.timeout(10_000));
    await until(() => device.records.has("a-dup"), "record");
    const seq = device.framesOf("MOVE")[0]!.message.seq;
    // The same ACTION reply again (a device answering a repeated seq), and an ACK for a seq nobody sent.
    device.writeRaw(
      encodeFrame({ op: "ACTION", seq: 900, ackSeq: seq, record: device.records.get("a-dup")!, detail: "" }),
    );
    device.writeRaw(encodeFrame({ op: "ACK", seq: 901, ackSeq: 4242 }));
    device.finish("a-dup", "reached");
    expect((await ended).kind).toBe("ended");
    expect(device.framesOf("MOVE")).toHaveLength(1);
    expect(device.executions.get("a-dup")).toBe(1);
    // The link still works after the stray replies.
    const again = transport.runMotion(move("a-dup-2"), AbortSignal.timeout(10_000));
    await until(() => device.records.has("a-dup-2"), "second record");
    device.finish("a-dup-2", "stopped");
    expect(await again).toMatchObject({ kind: "ended", record: { state: "stopped" } });
  });

  it("a device that already ran the id answers with its record, and the transport reports that record", async () => {
    const { transport, device } = setup();
    await transport.open();
    device.records.set("a-old", { actionId: "a-old", state: "reached", moved: true });
    const end = await transport.runMotion(move("a-old"), AbortSignal.timeout(10_000));
    expect(end).toMatchObject({ kind: "ended", record: { state: "reached" } });
    expect(device.executions.has("a-old")).toBe(false);
  });

  it("NACK → refused, with positive evidence and an error code", async () => {
    const { transport, device } = setup();
    await transport.open();
    // Within the config's limits (the transport refuses others unsent): the device's own word decides.
    device.nackMoves = { code: "OUT_OF_LIMITS", reason: "elbow 1 outside the device's own limits" };
    const end = await transport.runMotion(move("a-nack", { elbow: 1 }), AbortSignal.timeout(10_000));
    expect(end.kind).toBe("refused");
    if (end.kind === "refused") {
      expect(end.error.code).toBe("ARMB_ERR_MOTION_REFUSED");
      expect(end.reason).toContain("OUT_OF_LIMITS");
    }
    expect(device.framesOf("MOVE")).toHaveLength(1);
  });

  it("refuses locally (nothing sent) an unknown axis, a bad action id or a bad speed", async () => {
    const { transport, device } = setup();
    await transport.open();
    const signal = AbortSignal.timeout(10_000);
    const ends: MotionEnd[] = [
      await transport.runMotion(move("a-x", { no_such_joint: 1 }), signal),
      await transport.runMotion(move("has space"), signal),
      await transport.runMotion({ actionId: "a-speed", targets: { elbow: 1 }, speed: 0 }, signal),
      await transport.runMotion({ actionId: "a-nan", targets: { elbow: Number.NaN }, speed: 1 }, signal),
    ];
    for (const end of ends) expect(end).toMatchObject({ kind: "refused", error: { code: "ARMB_ERR_MOTION_REFUSED" } });
    expect(device.framesOf("MOVE")).toHaveLength(0);
  });

  it("when the signal fires: wait_ended, and no further MOVE or STOP on the wire", async () => {
    const { transport, device } = setup({ ackTimeoutMs: 20, maxResends: 5 });
    await transport.open();
    device.loseReplies.set("MOVE", 100);
    const controller = new AbortController();
    const ended = transport.runMotion(move("a-abort"), controller.signal);
    await until(() => device.framesOf("MOVE").length === 1, "first MOVE");
    controller.abort();
    expect(await ended).toEqual({ kind: "wait_ended" });
    const framesAtAbort = device.received.length;
    // Longer than every resend would have taken (20 ms × 5).
    await sleep(250);
    const after = device.received.slice(framesAtAbort).map((f) => f.message.op);
    expect(after.filter((op) => op === "MOVE" || op === "STOP")).toEqual([]);
    expect(device.framesOf("MOVE")).toHaveLength(1);
  });

  it("resends are bounded; an unanswered MOVE is then watched, never re-issued", async () => {
    const { transport, device } = setup({ ackTimeoutMs: 15, maxResends: 2, completionPollMs: 30 });
    await transport.open();
    device.loseReplies.set("MOVE", 1000);
    device.reportActionsInStatus = false;
    const ended = transport.runMotion(move("a-bounded"), AbortSignal.timeout(10_000));
    // After the MOVE gives up, the transport asks (QUERY_ACTION) instead of sending again.
    await until(() => device.framesOf("QUERY_ACTION").length >= 2, "completion polls");
    expect(device.framesOf("MOVE")).toHaveLength(3);
    for (const q of device.framesOf("QUERY_ACTION")) expect(q.message.voidIfUnknown).toBe(false);
    device.finish("a-bounded", "reached");
    expect(await ended).toMatchObject({ kind: "ended", record: { state: "reached" } });
    expect(device.framesOf("MOVE")).toHaveLength(3);
    expect(device.executions.get("a-bounded")).toBe(1);
  });

  it("garbage and corrupted frames on the line are ignored", async () => {
    const { transport, device } = setup();
    await transport.open();
    device.writeRaw(Uint8Array.from([0x13, 0x37, 0xff, 0x00, 0x00, 0x01, 0x02]));
    const good = encodeFrame({ op: "ACK", seq: 7, ackSeq: 4000 });
    const corrupt = Uint8Array.from(good);
    corrupt[2] = (corrupt[2] ?? 0) ^ 0x40;
    device.writeRaw(corrupt);
    device.writeRaw(Uint8Array.from([0x00]));
    const ended = transport.runMotion(move("a-garbage"), AbortSignal.timeout(10_000));
    await until(() => device.records.has("a-garbage"), "record");
    device.finish("a-garbage", "reached");
    expect((await ended).kind).toBe("ended");
    expect(transport.droppedFrames).toBeGreaterThanOrEqual(2);
  });

  it("link drop: waiting motion ends link_error, nothing re-sent, reconnects with backoff, later calls work", async () => {
    const { transport, device } = setup();
    await transport.open();
    const ended = transport.runMotion(move("a-drop"), AbortSignal.timeout(10_000));
    await until(() => device.records.has("a-drop"), "record");
    device.end.available = false;
    device.end.drop("USB adapter unplugged");
    const end = await ended;
    expect(end.kind).toBe("link_error");
    if (end.kind === "link_error") expect(end.error.code).toBe("ARMB_ERR_LINK_LOST");
    expect(transport.connectionState).toBe("reconnecting");
    // While the device is away, new motions are not sent: refused, positive evidence nothing left.
    const whileDown = await transport.runMotion(move("a-while-down"), AbortSignal.timeout(1000));
    expect(whileDown).toMatchObject({ kind: "refused", error: { code: "ARMB_ERR_LINK_DOWN" } });
    expect(transport.linkState()).toMatchObject({ state: "reconnecting", last_loss: { in_flight: ["a-drop"] } });
    await sleep(100);
    device.end.available = true;
    await until(() => transport.connectionState === "connected", "reconnected");
    expect(device.framesOf("HELLO_REQ")).toHaveLength(2);
    expect(device.framesOf("MOVE").map((f) => f.message.actionId)).toEqual(["a-drop"]);
    // The caller settles the interrupted action by asking, as the executor does.
    device.finish("a-drop", "reached");
    const record = await transport.queryAction("a-drop", { voidIfUnknown: true, signal: AbortSignal.timeout(2000) });
    expect(record).toMatchObject({ state: "reached", moved: true });
    const next = transport.runMotion(move("a-after"), AbortSignal.timeout(10_000));
    await until(() => device.records.has("a-after"), "record after reconnect");
    device.finish("a-after", "reached");
    expect((await next).kind).toBe("ended");
    expect(device.executions.get("a-drop")).toBe(1);
  });

  it("a returning link is called connected only once a motion would be sent on it (after the first status)", async () => {
    const { transport, device } = setup();
    await transport.open();
    device.end.available = false;
    device.end.drop("cable bumped");
    await until(() => transport.connectionState === "reconnecting", "reconnecting");
    device.streamStatus = false;
    device.end.available = true;
    // The device has answered HELLO, but the handshake still waits for its first status.
    await until(() => device.framesOf("HELLO_REQ").length === 2, "second HELLO_REQ");
    await sleep(50);
    expect(transport.connectionState).not.toBe("connected");
    expect(transport.linkState().state).toBe("reconnecting");
    device.streamStatus = true;
    await until(() => transport.connectionState === "connected", "reconnected");
    // Whenever it says connected, a motion is sent: no window where the two disagree.
    const next = transport.runMotion(move("a-first-after"), AbortSignal.timeout(10_000));
    await until(() => device.records.has("a-first-after"), "record after reconnect");
    device.finish("a-first-after", "reached");
    expect((await next).kind).toBe("ended");
  });

  it("queryAction waits for a reconnection within its signal, and answers undefined when it cannot ask", async () => {
    const { transport, device } = setup();
    await transport.open();
    device.end.available = false;
    device.end.drop();
    expect(
      await transport.queryAction("a-q", { voidIfUnknown: false, signal: AbortSignal.timeout(50) }),
    ).toBeUndefined();
    const asked = transport.queryAction("a-q", { voidIfUnknown: false, signal: AbortSignal.timeout(5000) });
    device.end.available = true;
    expect(await asked).toMatchObject({ actionId: "a-q", state: "unknown" });
  });

  it("queryAction with voidIfUnknown voids an id the device never saw", async () => {
    const { transport, device } = setup();
    await transport.open();
    const record = await transport.queryAction("a-never", { voidIfUnknown: true, signal: AbortSignal.timeout(2000) });
    expect(record).toMatchObject({ state: "voided", moved: false });
    expect(device.framesOf("QUERY_ACTION")[0]?.message.voidIfUnknown).toBe(true);
  });

  it("device reboot mid-motion: link_error REBOOTED, and the action is unknown (never voided) afterwards", async () => {
    const { transport, device } = setup();
    await transport.open();
    const reboots: number[] = [];
    transport.onReboot((r) => reboots.push(r.bootId));
    const ended = transport.runMotion(move("a-reboot"), AbortSignal.timeout(10_000));
    await until(() => device.records.has("a-reboot"), "record");
    device.reboot();
    const end = await ended;
    expect(end.kind).toBe("link_error");
    if (end.kind === "link_error") expect(end.error.code).toBe("ARMB_ERR_DEVICE_REBOOTED");
    expect(reboots).toEqual([2]);
    const record = await transport.queryAction("a-reboot", { voidIfUnknown: true, signal: AbortSignal.timeout(2000) });
    expect(record).toMatchObject({ actionId: "a-reboot", state: "unknown", moved: undefined });
    const query = device.framesOf("QUERY_ACTION").at(-1);
    expect(query?.message.voidIfUnknown).toBe(false);
    expect(device.executions.get("a-reboot")).toBe(1);
  });

  it("a MOVE whose reply was lost is not re-sent to a device that rebooted meanwhile", async () => {
    const { transport, device } = setup({ ackTimeoutMs: 20, maxResends: 5 });
    await transport.open();
    device.loseReplies.set("MOVE", 1);
    device.streamStatus = false;
    const ended = transport.runMotion(move("a-boot-race"), AbortSignal.timeout(10_000));
    await until(() => device.records.has("a-boot-race"), "MOVE heard");
    device.reboot();
    // Several ACK timeouts pass with no proof that the device is still the same boot.
    await sleep(150);
    expect(device.framesOf("MOVE")).toHaveLength(1);
    device.streamStatus = true;
    const end = await ended;
    expect(end).toMatchObject({ kind: "link_error", error: { code: "ARMB_ERR_DEVICE_REBOOTED" } });
    expect(device.framesOf("MOVE")).toHaveLength(1);
    expect(device.executions.get("a-boot-race")).toBe(1);
  });

  it("heartbeat: PINGs flow while connected, derived from the device watchdog", async () => {
    const { transport, device } = setup();
    device.watchdogMs = 120; // → a PING every 30 ms
    await transport.open();
    await until(() => device.framesOf("PING").length >= 3, "three PINGs");
    await transport.close();
    const pings = device.framesOf("PING").length;
    await sleep(100);
    expect(device.framesOf("PING").length).toBe(pings);
  });

  it("halt sends STOP for the named axes and returns the next status", async () => {
    const { transport, device } = setup();
    await transport.open();
    const result = await transport.halt({ axes: ["elbow", "gripper"], signal: AbortSignal.timeout(2000) });
    expect(result.halted).toBe(true);
    expect(result.status).toBeDefined();
    const stop = device.framesOf("STOP")[0]?.message;
    expect(stop?.axes).toEqual([
      device.axes.findIndex((a) => a.name === "elbow"),
      device.axes.findIndex((a) => a.name === "gripper"),
    ]);
    const all = await transport.halt({ signal: AbortSignal.timeout(2000) });
    expect(all.halted).toBe(true);
    expect(device.framesOf("STOP")[1]?.message.axes).toEqual([]);
  });

  it("halt that gets no ACK says so and carries an error", async () => {
    const { transport, device } = setup({ ackTimeoutMs: 10, maxResends: 1 });
    await transport.open();
    device.mute = true;
    const result = await transport.halt({ signal: AbortSignal.timeout(2000) });
    expect(result.halted).toBe(false);
    expect(result.error?.code).toBe("ARMB_ERR_DEVICE_TIMEOUT");
    expect(device.framesOf("STOP")).toHaveLength(2);
  });

  it("close is idempotent, ends waiting motions and leaves no timer behind", async () => {
    const before = process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;
    const { transport, device } = setup({ heartbeatMs: 10 });
    await transport.open();
    const ended = transport.runMotion(move("a-close"), AbortSignal.timeout(10_000));
    await until(() => device.records.has("a-close"), "record");
    await Promise.all([transport.close(), transport.close()]);
    await transport.close();
    expect(await ended).toMatchObject({ kind: "link_error", error: { code: "ARMB_ERR_TRANSPORT_CLOSED" } });
    device.stop();
    await sleep(20);
    const after = process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;
    expect(after).toBeLessThanOrEqual(before);
    expect(
      await transport.queryAction("a-close", { voidIfUnknown: false, signal: AbortSignal.timeout(100) }),
    ).toBeUndefined();
    await expect(transport.open()).rejects.toMatchObject({ code: "ARMB_ERR_TRANSPORT_CLOSED" });
  });
});
