import { afterEach, describe, expect, it } from "vitest";
import type { EffectEvent } from "../../../firmware-sim/EffectsLog.js";
import { socatOnPath } from "../../../firmware-sim/simOptions.js";
import {
  startSimulator,
  type RunningSimulator,
  type StartSimulatorOptions,
} from "../../../firmware-sim/startSimulator.js";
import { loadConfig } from "../../../src/config/loadConfig.js";
import { createSerialTransport } from "../../../src/transport/serial/createSerialTransport.js";
import type { SerialTransport, SerialTransportOptions } from "../../../src/transport/serial/SerialTransport.js";
import { TERMINAL_ACTION_STATES, type ActionRecord, type MotionEnd } from "../../../src/transport/Transport.js";

/**
 * The serial transport against the real firmware-sim, in this process, over
 * TCP and (when socat is installed) over a PTY pair. The simulator's effects
 * log is the ground truth the transport is judged by.
 */

const config = loadConfig();
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Rig {
  readonly sim: RunningSimulator;
  readonly transport: SerialTransport;
  readonly effects: EffectEvent[];
}

async function rig(
  simOptions: StartSimulatorOptions = {},
  transportOptions: SerialTransportOptions = {},
): Promise<Rig> {
  const effects: EffectEvent[] = [];
  const sim = await startSimulator({ armConfig: config, effects: { append: (e) => effects.push(e) }, ...simOptions });
  cleanups.push(() => sim.close());
  const transport = createSerialTransport(config, sim.link, transportOptions);
  cleanups.push(() => transport.close());
  await transport.open(AbortSignal.timeout(10_000));
  return { sim, transport, effects };
}

const startsOf = (effects: readonly EffectEvent[], id: string) =>
  effects.filter((e) => e.event === "motion_start" && e.action_id === id);
const endOf = (effects: readonly EffectEvent[], id: string) =>
  effects.find((e) => e.event === "motion_end" && e.action_id === id);

function duplicateStarts(effects: readonly EffectEvent[]): string[] {
  const seen = new Map<string, number>();
  for (const e of effects)
    if (e.event === "motion_start" && e.action_id !== null) seen.set(e.action_id, (seen.get(e.action_id) ?? 0) + 1);
  return [...seen].filter(([, n]) => n > 1).map(([id]) => id);
}

/** Asks until the device reports a terminal state (or `limitMs` passes), as the executor's observation does. */
async function settle(
  transport: SerialTransport,
  actionId: string,
  limitMs = 10_000,
): Promise<ActionRecord | undefined> {
  const started = Date.now();
  let last: ActionRecord | undefined;
  while (Date.now() - started < limitMs) {
    last = await transport.queryAction(actionId, { voidIfUnknown: true, signal: AbortSignal.timeout(1000) });
    if (last && (TERMINAL_ACTION_STATES[last.state] || (last.state === "unknown" && last.moved === undefined)))
      return last;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return last;
}

/** Checks a settled record against the effects log. Returns a problem, or undefined when they agree. */
function disagreement(
  effects: readonly EffectEvent[],
  actionId: string,
  record: ActionRecord | undefined,
): string | undefined {
  const starts = startsOf(effects, actionId).length;
  const end = endOf(effects, actionId);
  if (!record) return `${actionId}: never settled`;
  switch (record.state) {
    case "reached":
    case "stopped":
    case "stalled":
    case "faulted":
      return end?.event === "motion_end" && end.outcome === record.state
        ? undefined
        : `${actionId}: transport says ${record.state}, effects say ${end?.event === "motion_end" ? end.outcome : "no motion_end"}`;
    case "rejected":
    case "voided":
      return starts === 0 ? undefined : `${actionId}: transport says ${record.state} but the motion started`;
    case "unknown":
      // Only a reboot may make the device forget an action it had.
      return effects.some((e) => e.event === "reboot") ? undefined : `${actionId}: unknown without a reboot`;
    case "executing":
      return `${actionId}: still executing`;
    case "grasped":
      // The firmware has no grasp report; a transport that says so invents it.
      return `${actionId}: transport says grasped, which firmware never reports`;
  }
}

describe("SerialTransport over firmware-sim (TCP)", () => {
  it("a move reaches its target, once, and the pose shows it", async () => {
    const { transport, effects } = await rig();
    const end = await transport.runMotion(
      { actionId: "sim-reach", targets: { elbow: 0.4, shoulder_pan: -0.3 }, speed: 1 },
      AbortSignal.timeout(10_000),
    );
    expect(end).toMatchObject({ kind: "ended", record: { actionId: "sim-reach", state: "reached", moved: true } });
    expect(startsOf(effects, "sim-reach")).toHaveLength(1);
    expect(endOf(effects, "sim-reach")).toMatchObject({ outcome: "reached" });
    const next = await new Promise<NonNullable<ReturnType<SerialTransport["latestStatus"]>>>((resolve) => {
      const off = transport.onStatus((s) => {
        off();
        resolve(s);
      });
    });
    expect(next.axes.elbow?.position).toBeCloseTo(0.4, 2);
    expect(next.axes.shoulder_pan?.position).toBeCloseTo(-0.3, 2);
    expect(transport.device?.firmwareVersion).toMatch(/armbridge-sim/);
  });

  it("timeout mid-motion: wait_ended, then queryAction shows executing, then reached", async () => {
    const { transport, effects } = await rig({ motionTime: { kind: "fixed", ms: 1500 } });
    const end = await transport.runMotion(
      { actionId: "sim-slow", targets: { wrist_1: 0.2 }, speed: 1 },
      AbortSignal.timeout(150),
    );
    expect(end).toEqual({ kind: "wait_ended" });
    const during = await transport.queryAction("sim-slow", { voidIfUnknown: true, signal: AbortSignal.timeout(2000) });
    expect(during).toMatchObject({ state: "executing" });
    const after = await settle(transport, "sim-slow");
    expect(after).toMatchObject({ state: "reached", moved: true });
    expect(startsOf(effects, "sim-slow")).toHaveLength(1);
  });

  it("the heartbeat keeps the device watchdog fed through a motion longer than the watchdog", async () => {
    const { transport, effects } = await rig({ watchdogMs: 200, motionTime: { kind: "fixed", ms: 1200 } });
    const end = await transport.runMotion(
      { actionId: "sim-long", targets: { elbow: 0.9 }, speed: 1 },
      AbortSignal.timeout(10_000),
    );
    expect(end).toMatchObject({ kind: "ended", record: { state: "reached" } });
    expect(endOf(effects, "sim-long")).toMatchObject({ outcome: "reached" });
  });

  it("a NACKed move (out of limits) is refused and nothing starts", async () => {
    const { transport, effects } = await rig();
    const end = await transport.runMotion(
      { actionId: "sim-limit", targets: { elbow: 9 }, speed: 1 },
      AbortSignal.timeout(5000),
    );
    // The sim either refuses or clamps; either way the transport's account must match the effects.
    if (end.kind === "refused") expect(startsOf(effects, "sim-limit")).toHaveLength(0);
    else expect(end.kind).toBe("ended");
  });

  it("halt stops a long move: the motion ends stopped, as the effects log says", async () => {
    const { transport, effects } = await rig({ motionTime: { kind: "fixed", ms: 2000 } });
    const running = transport.runMotion(
      { actionId: "sim-halt", targets: { wrist_2: 1.0 }, speed: 1 },
      AbortSignal.timeout(10_000),
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    const halted = await transport.halt({ axes: ["wrist_2"], signal: AbortSignal.timeout(2000) });
    expect(halted.halted).toBe(true);
    const end = await running;
    expect(end).toMatchObject({ kind: "ended", record: { state: "stopped" } });
    expect(endOf(effects, "sim-halt")).toMatchObject({ outcome: "stopped" });
  });

  it("a simulator restarted on the same port: in-flight wait ends link_error, the transport reconnects and reports the reboot", async () => {
    const first = await rig({ motionTime: { kind: "fixed", ms: 3000 } }, { backoff: { initialMs: 20, maxMs: 200 } });
    const port = Number(new URL(first.sim.link).port);
    const reboots: number[] = [];
    first.transport.onReboot((r) => reboots.push(r.bootId));
    const running = first.transport.runMotion(
      { actionId: "sim-restart", targets: { elbow: 0.1 }, speed: 1 },
      AbortSignal.timeout(10_000),
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    await first.sim.close();
    const end: MotionEnd = await running;
    expect(end.kind).toBe("link_error");
    const second = await startSimulator({ armConfig: config, port, seed: 99 });
    cleanups.push(() => second.close());
    const connected = Date.now();
    while (first.transport.connectionState !== "connected" && Date.now() - connected < 10_000)
      await new Promise((r) => setTimeout(r, 10));
    expect(first.transport.connectionState).toBe("connected");
    // A new simulator is a new boot: the old action is unknown there, and must not be voided as if it never ran.
    if (second.arm.bootId !== first.sim.arm.bootId) {
      expect(reboots).toHaveLength(1);
      const record = await first.transport.queryAction("sim-restart", {
        voidIfUnknown: true,
        signal: AbortSignal.timeout(2000),
      });
      expect(record).toMatchObject({ state: "unknown", moved: undefined });
    }
    expect(startsOf(first.effects, "sim-restart")).toHaveLength(1);
  });
});

describe("SerialTransport over firmware-sim with seeded faults", () => {
  const trials = 40;
  /**
   * A seed fixes which frames are lost only in the order they cross the wire,
   * and STATUS ticks and PINGs interleave with MOVEs by wall-clock timing: the
   * same seed can lose a MOVE in one run and only STATUS frames in the next
   * (a lost ACTION reply is no loss, its STATUS ends the motion first). So the
   * trials go on, up to this bound, until the fault path a case is about has
   * been exercised; a transport that never takes it still fails.
   */
  const maxTrials = 200;

  it.each([
    { name: "drops", sim: { seed: 7, dropRate: 0.15 } },
    { name: "corruption", sim: { seed: 11, corruptRate: 0.15 } },
    // Motions outlast the ACK timeout here, so the late MOVE replies (not only the opening HELLO's) force resends of the MOVE itself.
    { name: "late ACKs (every reply after the ACK timeout)", sim: { seed: 13, ackDelayMs: 60 }, motionMs: 150 },
    // Some replies leave after the ACK timeout while the motion runs on: the MOVE arrived and ran, and its re-sent copy must be answered without running again.
    {
      name: "late replies (--late-reply-rate)",
      sim: { seed: 19, lateReplyRate: 0.3, lateReplyMs: 120 },
      motionMs: 150,
    },
    {
      name: "all of them plus genuine failures",
      sim: { seed: 17, dropRate: 0.1, corruptRate: 0.05, ackDelayMs: 30, failRate: 0.1 },
    },
  ] as { name: string; sim: Record<string, number> & { seed: number }; motionMs?: number }[])(
    `$name: at least ${trials} motions, no duplicate execution, every outcome agrees with ground truth`,
    async ({ sim: faults, motionMs }) => {
      const { transport, effects } = await rig(
        { ...faults, motionTime: { kind: "fixed", ms: motionMs ?? 40 } },
        { ackTimeoutMs: 50, maxResends: 4, completionPollMs: 100 },
      );
      const problems: string[] = [];
      const kinds = new Map<MotionEnd["kind"], number>();
      const wantsResend =
        faults.dropRate !== undefined || faults.ackDelayMs !== undefined || faults.lateReplyRate !== undefined;
      const wantsDamage = faults.corruptRate !== undefined;
      const exercised = (): boolean =>
        (!wantsResend || transport.counters.resentFrames > 0) && (!wantsDamage || transport.counters.droppedFrames > 0);
      let ran = 0;
      for (let i = 0; i < trials || (i < maxTrials && !exercised()); i++) {
        ran = i + 1;
        const actionId = `fault-${faults.seed}-${i}`;
        const end = await transport.runMotion(
          { actionId, targets: { elbow: i % 2 === 0 ? 0.3 : -0.3 }, speed: 1 },
          AbortSignal.timeout(1500),
        );
        kinds.set(end.kind, (kinds.get(end.kind) ?? 0) + 1);
        let record: ActionRecord | undefined;
        switch (end.kind) {
          case "ended":
            record = end.record;
            break;
          case "refused":
            record = { actionId, state: "rejected", moved: false };
            break;
          case "wait_ended":
          case "link_error":
            record = await settle(transport, actionId);
            break;
        }
        const problem = disagreement(effects, actionId, record);
        if (problem) problems.push(problem);
      }
      expect(duplicateStarts(effects)).toEqual([]);
      expect(problems).toEqual([]);
      // At least some motions really ran, or the test proves nothing.
      expect(effects.filter((e) => e.event === "motion_end" && e.outcome === "reached").length).toBeGreaterThan(
        ran / 2,
      );
      console.log(
        `faults ${JSON.stringify(faults)}: ${ran} motions, ends ${JSON.stringify(Object.fromEntries(kinds))}, counters ${JSON.stringify(transport.counters)}`,
      );
      // Lost and late replies must have exercised the resend path, or this proves nothing about it.
      if (wantsResend) expect(transport.counters.resentFrames).toBeGreaterThan(0);
      if (wantsDamage) expect(transport.counters.droppedFrames).toBeGreaterThan(0);
    },
    60_000,
  );

  it("reboots mid-motion: no duplicate execution, and a forgotten action is unknown, never voided", async () => {
    const { transport, effects } = await rig(
      { seed: 23, rebootRate: 0.3, motionTime: { kind: "fixed", ms: 80 } },
      { ackTimeoutMs: 50, completionPollMs: 100 },
    );
    const problems: string[] = [];
    const kinds: string[] = [];
    for (let i = 0; i < 12; i++) {
      const actionId = `reboot-${i}`;
      const end = await transport.runMotion(
        { actionId, targets: { wrist_3: i % 2 === 0 ? 0.5 : -0.5 }, speed: 1 },
        AbortSignal.timeout(3000),
      );
      kinds.push(end.kind === "link_error" ? end.error.code : end.kind);
      const record =
        end.kind === "ended"
          ? end.record
          : end.kind === "refused"
            ? ({ actionId, state: "rejected", moved: false } as const)
            : await settle(transport, actionId);
      if (record?.state === "voided" && startsOf(effects, actionId).length > 0)
        problems.push(`${actionId}: voided after it started`);
      const problem = disagreement(effects, actionId, record);
      if (problem) problems.push(problem);
    }
    console.log(`reboot trials: ${kinds.join(" ")}`);
    expect(effects.some((e) => e.event === "reboot")).toBe(true);
    expect(kinds).toContain("ARMB_ERR_DEVICE_REBOOTED");
    expect(duplicateStarts(effects)).toEqual([]);
    expect(problems).toEqual([]);
  });
});

const haveSocat = socatOnPath();
describe("SerialTransport over firmware-sim (PTY via socat)", () => {
  if (!haveSocat) console.warn("socat is not on PATH: PTY tests skipped (apt-get install -y socat)");

  it.skipIf(!haveSocat)("over a real PTY (skipped without socat): a move reaches its target once", async () => {
    const { sim, transport, effects } = await rig({ link: "pty" });
    expect(sim.link.startsWith("/")).toBe(true);
    const end = await transport.runMotion(
      { actionId: "pty-reach", targets: { elbow: -0.2, gripper: 0.3 }, speed: 1 },
      AbortSignal.timeout(10_000),
    );
    expect(end).toMatchObject({ kind: "ended", record: { state: "reached" } });
    expect(startsOf(effects, "pty-reach")).toHaveLength(1);
  });

  it.skipIf(!haveSocat)(
    "over a real PTY with drops and late ACKs (skipped without socat): no duplicates, outcomes agree",
    async () => {
      const { transport, effects } = await rig(
        { link: "pty", seed: 31, dropRate: 0.1, ackDelayMs: 40, motionTime: { kind: "fixed", ms: 40 } },
        { ackTimeoutMs: 50 },
      );
      const problems: string[] = [];
      for (let i = 0; i < 20; i++) {
        const actionId = `pty-fault-${i}`;
        const end = await transport.runMotion(
          { actionId, targets: { elbow: i % 2 === 0 ? 0.3 : -0.3 }, speed: 1 },
          AbortSignal.timeout(1500),
        );
        const record =
          end.kind === "ended"
            ? end.record
            : end.kind === "refused"
              ? ({ actionId, state: "rejected", moved: false } as const)
              : await settle(transport, actionId);
        const problem = disagreement(effects, actionId, record);
        if (problem) problems.push(problem);
      }
      expect(duplicateStarts(effects)).toEqual([]);
      expect(problems).toEqual([]);
    },
  );
});
