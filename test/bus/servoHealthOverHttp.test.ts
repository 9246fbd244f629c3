import { afterEach, describe, expect, it } from "vitest";
import type * as z from "zod/mini";
import { startBusSimulator, type RunningBusSimulator } from "../../firmware-sim/bus/startBusSimulator.js";
import { MemoryEffects } from "../../firmware-sim/EffectsLog.js";
import { Bridge } from "../../src/bridge/Bridge.js";
import { startHttpServer, type RunningHttpServer } from "../../src/surfaces/http/startHttpServer.js";
import { ARM_STATE_VIEW, type ArmStateView, type ServoHealthView } from "../../src/wire/index.js";
import { createServoBusTransport } from "../../src/transport/bus/index.js";
import { BUS_PROTOCOLS, type BusProtocolName } from "../../src/protocol/bus/index.js";
import { busTestConfig } from "../support/busTestConfig.js";
import { readEventStream } from "../support/readEventStream.js";

// Servo health end to end on the simulator: a servo heated and a supply
// dropped through firmware-sim reach GET /v1/state and the SSE `state` event
// with warnings judged against the servo's own limit registers, an
// overheating trip as an alarm naming the servo, and nothing moving for any
// of it (the effects log is the ground truth).

const TOKEN = "servo-health-token-0123456789";
const auth = { authorization: `Bearer ${TOKEN}` };

let running:
  | { sim: RunningBusSimulator; bridge: Bridge; server: RunningHttpServer; stream?: { close(): Promise<void> } }
  | undefined;

afterEach(async () => {
  const r = running;
  running = undefined;
  await r?.stream?.close();
  await r?.server.close();
  await r?.bridge.close();
  await r?.sim.close();
});

async function start(
  protocol: BusProtocolName,
): Promise<{ sim: RunningBusSimulator; server: RunningHttpServer; effects: MemoryEffects }> {
  const config = busTestConfig(protocol);
  const effects = new MemoryEffects();
  const sim = await startBusSimulator({ bus: protocol, armConfig: config, link: "tcp", port: 0, seed: 3, effects });
  const transport = createServoBusTransport(config, sim.link, { conditionPeriodMs: 50 });
  const bridge = await Bridge.start({ config, transport: { kind: "custom", transport }, dataDir: ":memory:" });
  const server = await startHttpServer(bridge, { token: TOKEN, port: 0, events: { stateIntervalMs: 50 } });
  running = { sim, bridge, server };
  return { sim, server, effects };
}

function fits<S extends z.ZodMiniType>(schema: S, value: unknown): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success)
    throw new Error(
      `does not fit the wire contract: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
    );
  return parsed.data;
}

async function state(server: RunningHttpServer): Promise<ArmStateView> {
  const res = await fetch(`${server.url}/v1/state`, { headers: auth });
  return fits(ARM_STATE_VIEW, await res.json());
}

/** The stream's `state` events, each held to the wire contract as it is read. */
function streamStates(server: RunningHttpServer): { readonly states: ArmStateView[]; close(): Promise<void> } {
  const stream = readEventStream(`${server.url}/v1/events`, auth);
  return {
    get states() {
      return stream.events.filter((e) => e.event === "state").map((e) => fits(ARM_STATE_VIEW, e.data));
    },
    close: () => stream.close(),
  };
}

async function until<T>(probe: () => Promise<T | undefined> | T | undefined, ms = 5000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const hit = await probe();
    if (hit !== undefined) return hit;
    if (Date.now() > deadline) throw new Error("timed out waiting for the servo health to show it");
    await new Promise((r) => setTimeout(r, 20));
  }
}

const servo = (s: ArmStateView, axis: string): ServoHealthView | undefined =>
  s.servo_health?.find((h) => h.axis === axis);

describe.each(BUS_PROTOCOLS)("servo health on a %s bus, through the simulator", (protocol) => {
  it("reads each servo's temperature, supply, load and its own limits; a heated servo and a sagging supply warn in /v1/state and SSE; an overheated one is an alarm; nothing moves", async () => {
    const { sim, server, effects } = await start(protocol);
    const first = await until(async () => {
      const s = await state(server);
      return s.servo_health?.every(
        (h) => h.temperature_c !== undefined && h.temperature_limit_c !== undefined && h.voltage_min_v !== undefined,
      )
        ? s
        : undefined;
    });
    const names = Object.keys(first.pose);
    expect(first.servo_health!.map((h) => h.axis).sort()).toEqual([...names].sort());
    const wrist = servo(first, "wrist_2")!;
    const simWrist = sim.bus.all.find((s) => s.axis.name === "wrist_2")!;
    // The servo's own registers, decoded: what the simulated sensors read and the limits it keeps.
    expect(wrist).toMatchObject({
      servo_id: simWrist.axis.id,
      temperature_c: 32,
      temperature_limit_c: 70,
      voltage_v: simWrist.voltage,
      hardware_errors: [],
      shut_down: false,
      alerts: [],
    });
    // The factory voltage limits: XL330 3.5–7.0 V (e-Manual), STS3215 4.0–8.0 V (Feetech memory table).
    expect([wrist.voltage_min_v, wrist.voltage_max_v]).toEqual(protocol === "dynamixel_2" ? [3.5, 7] : [4, 8]);
    // Holding its pose with torque on: a small load, signed, never absent on a servo that reports it.
    expect(wrist.load_pct).toBeGreaterThan(0);
    expect(wrist.load_pct).toBeLessThan(20);

    const stream = streamStates(server);
    running!.stream = stream;
    // 64 °C: inside the limit of 70, within its ten degrees: a warning. The supply sags to 3 % above the minimum.
    sim.bus.setCondition("wrist_2", { temperature: 64 });
    const sagged = Math.round(wrist.voltage_min_v! * 1.03 * 10) / 10;
    sim.bus.setSupplyVoltage(sagged);
    const warned = await until(() => {
      const s = stream.states.at(-1);
      const w = s && servo(s, "wrist_2");
      return w?.temperature_c === 64 && w.voltage_v === sagged ? w : undefined;
    });
    expect(warned.alerts.map((a) => [a.kind, a.level])).toEqual(
      expect.arrayContaining([
        ["temperature", "warning"],
        ["voltage", "warning"],
      ]),
    );
    expect(warned.alerts.find((a) => a.kind === "temperature")!.message).toMatch(
      /servo \d+ \(wrist_2\): 64 °C, near its limit of 70 °C/,
    );
    expect(warned.hardware_errors).toEqual([]);
    const fromGet = servo(await state(server), "wrist_2")!;
    expect(fromGet.alerts.map((a) => a.level)).toEqual(["warning", "warning"]);
    // Every servo sees the sagging supply; the others are still cool.
    expect(servo(await state(server), "elbow")!.alerts.map((a) => a.kind)).toEqual(["voltage"]);

    // Past its limit: the servo's own protection trips it; the bridge shows it as an alarm with what to do.
    sim.bus.setCondition("wrist_2", { temperature: 74 });
    const tripped = await until(() => {
      const s = stream.states.at(-1);
      const w = s && servo(s, "wrist_2");
      return w?.hardware_errors.includes("overheating") ? { s: s!, w } : undefined;
    });
    expect(tripped.w.shut_down).toBe(true);
    const alarm = tripped.w.alerts[0]!;
    expect(alarm).toMatchObject({ kind: "hardware_error", level: "alarm", error: "overheating" });
    expect(alarm.message).toMatch(/servo \d+ \(wrist_2\): overheating/);
    expect(alarm.advice).toMatch(/cool/);
    expect(tripped.s.faults.join(" ")).toMatch(/wrist/);
    expect(simWrist.torque).toBe(false);

    // Health is shown, never acted on: no motion started or ended for any of it.
    expect(effects.events.filter((e) => e.event === "motion_start")).toEqual([]);
  });
});

describe("a transport without servo data", () => {
  it("has no servo_health in /v1/state (absent, not zeros)", async () => {
    const { FakeArm } = await import("../surfaces/http/FakeArm.js");
    const { testConfig } = await import("../support/testConfig.js");
    const config = testConfig();
    const bridge = await Bridge.start({
      config,
      transport: { kind: "custom", transport: new FakeArm(config) },
      dataDir: ":memory:",
    });
    const server = await startHttpServer(bridge, { token: TOKEN, port: 0 });
    try {
      const s = await state(server);
      expect("servo_health" in s).toBe(false);
    } finally {
      await server.close();
      await bridge.close();
    }
  });
});
