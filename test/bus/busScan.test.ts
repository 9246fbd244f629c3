import { afterEach, describe, expect, it } from "vitest";
import type { BusLayoutFile } from "../../firmware-sim/bus/BusLayout.js";
import { startBusSimulator, type RunningBusSimulator } from "../../firmware-sim/bus/startBusSimulator.js";
import { MemoryEffects } from "../../firmware-sim/EffectsLog.js";
import { loadConfig } from "../../src/config/loadConfig.js";
import { runCli } from "../../src/surfaces/cli/runCli.js";
import { protocolNamed, type BusProtocolName } from "../../src/protocol/bus/index.js";
import { captureIo } from "../support/captureIo.js";

/** The shipped arm of each bus: its servos, ids and models are what a scan must find. */
const SHIPPED: Record<BusProtocolName, string> = {
  feetech_sts: "config/so101.yaml",
  dynamixel_2: "config/koch-follower.yaml",
};
/** Two bauds besides the configured 1 Mbaud that each family can be set to. */
const OTHER_BAUDS: Record<BusProtocolName, number[]> = { feetech_sts: [115200, 500000], dynamixel_2: [57600, 115200] };

let sims: RunningBusSimulator[] = [];
afterEach(async () => {
  for (const s of sims) await s.close();
  sims = [];
});

async function sim(
  protocol: BusProtocolName,
  options: { layout?: BusLayoutFile; link?: "rfc2217" | "tcp" } = {},
): Promise<RunningBusSimulator> {
  const s = await startBusSimulator({
    bus: protocol,
    armConfig: loadConfig(SHIPPED[protocol]),
    link: options.link ?? "rfc2217",
    port: 0,
    seed: 1,
    effects: new MemoryEffects(),
    ...(options.layout ? { layout: options.layout } : {}),
  });
  sims.push(s);
  return s;
}

interface ScanJson {
  servos: {
    protocol: string;
    id: number;
    model: string;
    model_number: number;
    firmware: string;
    baud: number;
    shared_id?: string;
  }[];
  hints: string[];
}

async function bus(argv: string[]): Promise<{ code: number; json: ScanJson; stderr: string }> {
  const io = captureIo();
  const code = await runCli(["bus", ...argv, "--json"], io);
  await new Promise((r) => setImmediate(r));
  const line = io.out().trim().split("\n").pop() ?? "{}";
  return { code, json: JSON.parse(line === "" ? "{}" : line) as ScanJson, stderr: io.err() };
}

describe.each(["feetech_sts", "dynamixel_2"] as const)("armbridge bus on a simulated %s bus", (protocol) => {
  const table = protocolNamed(protocol).table;

  it("scan finds exactly the configured ids and models at the configured baud, and nothing at other bauds", async () => {
    const s = await sim(protocol);
    const config = loadConfig(SHIPPED[protocol]);
    const bauds = [1_000_000, ...OTHER_BAUDS[protocol]];
    const r = await bus([
      "scan",
      "--serial",
      s.link,
      "--protocol",
      protocol,
      ...bauds.flatMap((b) => ["--baud", String(b)]),
    ]);
    expect(r.code).toBe(0);
    // Ground truth: the simulator's own registers.
    const truth = s.bus.all
      .map((servo) => ({ id: servo.id, model_number: servo.get(table.modelNumber), baud: servo.baud }))
      .sort((a, b) => a.id - b.id);
    expect(r.json.servos.map((x) => ({ id: x.id, model_number: x.model_number, baud: x.baud }))).toEqual(truth);
    const configured = [
      ...config.arm.joints.map((j) => ({ id: j.servo!.id, model: j.servo!.model })),
      { id: config.arm.gripper!.servo!.id, model: config.arm.gripper!.servo!.model },
    ].sort((a, b) => a.id - b.id);
    expect(r.json.servos.map((x) => ({ id: x.id, model: x.model }))).toEqual(configured);
    expect(new Set(r.json.servos.map((x) => x.baud))).toEqual(new Set([config.bus!.baud]));
    expect(r.json.hints).toEqual([]);
  });

  it("finds servos at non-default ids and other bauds, each at its own baud", async () => {
    const [slow, fast] = OTHER_BAUDS[protocol];
    const s = await sim(protocol, {
      layout: {
        servos: [
          { joint: "shoulder_pan", id: 11, baud: slow! },
          { joint: "elbow_flex", id: 42, baud: fast! },
          { joint: "gripper", id: 200 },
        ],
      },
    });
    const r = await bus([
      "scan",
      "--serial",
      s.link,
      "--protocol",
      protocol,
      "--baud",
      String(slow),
      "--baud",
      String(fast),
      "--baud",
      "1000000",
    ]);
    expect(r.code).toBe(0);
    expect(r.json.servos.map((x) => [x.id, x.baud])).toEqual([
      [11, slow],
      [42, fast],
      [200, 1_000_000],
    ]);
  });

  it("hints when two servos share an id, and names the id", async () => {
    const s = await sim(protocol, {
      layout: { servos: [{ id: 1, position: 1000 }, { id: 1, position: 3000 }, { id: 5 }] },
    });
    const r = await bus(["scan", "--serial", s.link, "--protocol", protocol, "--baud", "1000000"]);
    const one = r.json.servos.find((x) => x.id === 1);
    expect(one?.shared_id).toBeTruthy();
    expect(r.json.servos.find((x) => x.id === 5)?.shared_id).toBeUndefined();
    expect(r.json.hints.some((h) => /id 1 at 1000000 baud seems to be shared/.test(h))).toBe(true);
  });

  it("set-id gives the lone servo its id, kept across a power cycle", async () => {
    const s = await sim(protocol, { layout: { servos: [{ id: 1, baud: table.setup.factoryBaud }] } });
    const r = await bus([
      "set-id",
      "--serial",
      s.link,
      "--protocol",
      protocol,
      "--id",
      "7",
      "--baud",
      String(table.setup.factoryBaud),
    ]);
    expect(r.code).toBe(0);
    const servo = s.bus.all[0]!;
    expect(servo.id).toBe(7);
    s.bus.powerCycle(1, 0);
    expect(servo.id).toBe(7);
    expect(table.setup.eepromLock ? servo.get(table.setup.eepromLock.register) : 1).toBe(1);
  });

  it("set-id refuses, writing nothing, when more than one servo answers", async () => {
    const s = await sim(protocol, { layout: { servos: [{ id: 1 }, { id: 2 }] } });
    const io = captureIo();
    const code = await runCli(
      ["bus", "set-id", "--serial", s.link, "--protocol", protocol, "--id", "9", "--baud", "1000000"],
      io,
    );
    expect(code).toBe(1);
    expect(io.err()).toContain("ARMB_ERR_BUS_NOT_ALONE");
    expect(s.bus.all.map((x) => x.id)).toEqual([1, 2]);
  });

  it("set-baud moves the lone servo to another rate and follows it there", async () => {
    const [slow] = OTHER_BAUDS[protocol];
    const s = await sim(protocol, { layout: { servos: [{ id: 3, baud: slow! }] } });
    const r = await bus([
      "set-baud",
      "--serial",
      s.link,
      "--protocol",
      protocol,
      "--to",
      "1000000",
      "--baud",
      String(slow),
    ]);
    expect(r.code).toBe(0);
    expect(s.bus.all[0]!.baud).toBe(1_000_000);
    const after = await bus([
      "scan",
      "--serial",
      s.link,
      "--protocol",
      protocol,
      "--baud",
      String(slow),
      "--baud",
      "1000000",
    ]);
    expect(after.json.servos.map((x) => [x.id, x.baud])).toEqual([[3, 1_000_000]]);
  });

  it("set-baud over a raw tcp:// link is refused before anything is written", async () => {
    const s = await sim(protocol, { link: "tcp", layout: { servos: [{ id: 3 }] } });
    const io = captureIo();
    const code = await runCli(
      ["bus", "set-baud", "--serial", s.link, "--protocol", protocol, "--to", "115200", "--baud", "1000000"],
      io,
    );
    expect(code).toBe(1);
    expect(io.err()).toContain("ARMB_ERR_LINK_BAUD");
    expect(s.bus.all[0]!.baud).toBe(1_000_000);
  });
});
