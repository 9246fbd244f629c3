/**
 * npm run bench:link — how fast a lost link comes back, on every transport,
 * and what happened to what was in flight.
 *
 * 20 drops per row, every other one with a move under way (started 150 ms
 * before the drop). A row's figure is the time from the device answering
 * again to the transport saying `connected` (p50 and max): the reconnection
 * back-off's share (it caps at 2 s between attempts) plus one attempt. The
 * rows:
 * - serial / Dynamixel 2.0 / Feetech STS: firmware-sim in this process, its
 *   TCP link cut for 600 ms (idle) or 900 ms (with a move), the device running on;
 * - Dynamixel / Feetech, process restarted: armbridge-sim killed (SIGKILL) and
 *   started again on the same port — a new device state, servos with torque off;
 * - Dynamixel / Feetech, power loss: the servo supply of the bus off for 800 ms;
 * - ROS 2 (rclnodejs double): the graph partitioned for 600 / 1600 ms.
 * For each drop with a move: the action id the transport had in flight, and
 * how its call was settled once the arm answered (by the ledger). And, by the
 * arm's own record (the effects log, the double's goals), the motions it
 * started per call sent: never more than one, none while idle or on arming.
 *
 * Prints figures; asserts nothing. Runs from a bundle (it uses the ROS test
 * double, which is not part of dist): `npm run bench:link`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startBusSimulator } from "../firmware-sim/bus/startBusSimulator.js";
import { MemoryEffects } from "../firmware-sim/EffectsLog.js";
import { quantile, readEffects } from "../firmware-sim/effectsJudge.js";
import { spawnSimulator, type SimChild } from "../firmware-sim/spawnSimulator.js";
import { startSimulator } from "../firmware-sim/startSimulator.js";
import type { ArmConfig } from "../src/config/ArmConfig.js";
import { loadConfig } from "../src/config/loadConfig.js";
import { packageRoot } from "../src/config/packageRoot.js";
import { silentLogger } from "../src/observability/logger.js";
import type { Executor } from "../src/executor/Executor.js";
import { composeExecutor } from "../src/bridge/composeExecutor.js";
import { IntentLedger } from "../src/ledger/IntentLedger.js";
import { createDefaultTools } from "../src/tools/defaultTools.js";
import { createServoBusTransport } from "../src/transport/bus/index.js";
import type { BusProtocolName } from "../src/protocol/bus/index.js";
import { createSerialTransport } from "../src/transport/serial/index.js";
import type { Transport } from "../src/transport/Transport.js";
import { createRos2TransportOnDouble } from "../test/doubles/createRos2TransportOnDouble.js";
import { measureDrops, type DropRig, type DropSample } from "./link/measureDrops.js";
import { formatTable, ms } from "./seed/table.js";

const DROPS = Number(process.env.BENCH_DROPS ?? 20);
const SEED = Number(process.env.BENCH_SEED ?? 42);
const BUS_FILES: Readonly<Record<BusProtocolName, string>> = {
  feetech_sts: "so101.yaml",
  dynamixel_2: "koch-follower.yaml",
};
const BUS_MOVES: readonly [Record<string, number>, Record<string, number>] = [
  { elbow_flex: 0.6 },
  { elbow_flex: -0.3 },
];
const SIM_MOVES: readonly [Record<string, number>, Record<string, number>] = [{ elbow: 0.4 }, { elbow: 1.2 }];

interface Row {
  readonly name: string;
  readonly samples: readonly DropSample[];
}

function onExecutor(
  config: ArmConfig,
  transport: Transport,
): { executor: Executor; ledger: IntentLedger; close(): void } {
  const ledger = IntentLedger.open(":memory:");
  const executor = composeExecutor({ config, registry: createDefaultTools(config), transport, ledger });
  return {
    executor,
    ledger,
    close: () => {
      executor.close();
      ledger.close();
    },
  };
}

async function serialRow(): Promise<Row> {
  const config = loadConfig();
  const effects = new MemoryEffects();
  const sim = await startSimulator({
    armConfig: config,
    link: "tcp",
    port: 0,
    seed: SEED,
    effects,
    logger: silentLogger,
  });
  const transport = createSerialTransport(config, sim.link);
  await transport.open(AbortSignal.timeout(10_000));
  const e = onExecutor(config, transport);
  try {
    const rig: DropRig = {
      transport,
      ...e,
      moves: SIM_MOVES,
      motionStarts: () => starts(effects),
      drop: (mid) => new Promise((resolve) => void sim.interruptLink(mid ? 900 : 600, resolve)),
    };
    return { name: "serial (firmware-sim, TCP cut)", samples: await measureDrops(rig, DROPS) };
  } finally {
    e.close();
    await transport.close();
    await sim.close();
  }
}

async function busRow(protocol: BusProtocolName, how: "cut" | "power"): Promise<Row> {
  const config = loadConfig(join(packageRoot(), "config", BUS_FILES[protocol]));
  const effects = new MemoryEffects();
  const sim = await startBusSimulator({
    bus: protocol,
    armConfig: config,
    link: "tcp",
    port: 0,
    seed: SEED,
    effects,
    logger: silentLogger,
  });
  const transport = createServoBusTransport(config, sim.link);
  await transport.open(AbortSignal.timeout(10_000));
  const e = onExecutor(config, transport);
  try {
    const drop = (mid: boolean): Promise<number> =>
      how === "cut"
        ? new Promise((resolve) => void sim.interruptLink(mid ? 900 : 600, resolve))
        : new Promise((resolve) => {
            sim.bus.powerLoss(800);
            // Deaf for the outage and the servos' boot (50 ms): back when they answer again.
            setTimeout(() => resolve(Date.now()), 850);
          });
    const rig: DropRig = { transport, ...e, moves: BUS_MOVES, motionStarts: () => starts(effects), drop };
    return {
      name: `${protocol} (${how === "cut" ? "TCP cut" : "bus power loss 800 ms"})`,
      samples: await measureDrops(rig, DROPS),
    };
  } finally {
    e.close();
    await transport.close();
    await sim.close();
  }
}

async function busRestartRow(protocol: BusProtocolName): Promise<Row> {
  const dir = mkdtempSync(join(tmpdir(), "armbridge-link-bench-"));
  const config = loadConfig(join(packageRoot(), "config", BUS_FILES[protocol]));
  const spawn = (port: number): Promise<SimChild> =>
    spawnSimulator({
      link: "tcp",
      port,
      seed: SEED,
      effectsLog: join(dir, "effects.jsonl"),
      logFile: join(dir, "sim.log"),
      flags: ["--bus", protocol, "--config", join(packageRoot(), "config", BUS_FILES[protocol])],
    });
  let sim = await spawn(0);
  const port = Number(new URL(sim.link).port);
  const transport = createServoBusTransport(config, sim.link);
  await transport.open(AbortSignal.timeout(10_000));
  const e = onExecutor(config, transport);
  try {
    const drop = async (): Promise<number> => {
      process.kill(sim.pid, "SIGKILL");
      await sim.exited;
      sim = await spawn(port);
      return Date.now();
    };
    // Every simulator started on the port appends to the one effects log.
    const rig: DropRig = {
      transport,
      ...e,
      moves: BUS_MOVES,
      motionStarts: () => readEffects(join(dir, "effects.jsonl")).filter((x) => x.event === "motion_start").length,
      drop,
    };
    return {
      name: `${protocol} (armbridge-sim killed, restarted on its port)`,
      samples: await measureDrops(rig, DROPS),
    };
  } finally {
    e.close();
    await transport.close();
    await sim.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function rosRow(): Promise<Row> {
  const ros = await createRos2TransportOnDouble(loadConfig());
  await ros.transport.open(AbortSignal.timeout(10_000));
  const config = ros.transport.config;
  const e = onExecutor(config, ros.transport);
  try {
    const goals = (): number =>
      [...ros.double.world.servers.values()].reduce((n, server) => n + server.goals.length, 0);
    const rig: DropRig = {
      transport: ros.transport,
      ...e,
      moves: SIM_MOVES,
      motionStarts: goals,
      drop: (mid) => new Promise((resolve) => ros.double.world.partition(mid ? 1600 : 600, resolve)),
    };
    return { name: "ros2 (rclnodejs double, partition)", samples: await measureDrops(rig, DROPS) };
  } finally {
    e.close();
    await ros.close();
  }
}

const starts = (effects: MemoryEffects): number => effects.events.filter((x) => x.event === "motion_start").length;

/** A settled row in words: an unknown was settled by nobody yet; it waits for an operator. */
const settledAs = (c: NonNullable<DropSample["inFlightCall"]>): string =>
  c.state === "unknown" ? "unknown (for an operator)" : `${c.state} by ${c.settledBy}`;

function summary(rows: readonly Row[]): string {
  const table: string[][] = [
    [
      "link",
      "drops",
      "back → connected p50",
      "max",
      "attempts p50",
      "new incarnation",
      "arm motions / calls sent",
      "moves in flight: settled as",
    ],
  ];
  for (const r of rows) {
    const times = r.samples.map((s) => s.backToConnectedMs);
    const attempts = r.samples.map((s) => s.loss?.attempts ?? 0);
    const incarnations = r.samples.filter((s) => s.loss?.incarnation_changed).length;
    const outcomes = new Map<string, number>();
    for (const s of r.samples)
      if (s.inFlightCall) outcomes.set(settledAs(s.inFlightCall), (outcomes.get(settledAs(s.inFlightCall)) ?? 0) + 1);
    const sum = (f: (s: DropSample) => number): number => r.samples.reduce((n, s) => n + f(s), 0);
    table.push([
      r.name,
      String(r.samples.length),
      ms(quantile(times, 0.5)),
      ms(Math.max(...times)),
      String(quantile(attempts, 0.5)),
      `${incarnations}/${r.samples.length}`,
      `${sum((s) => s.armMotions)}/${sum((s) => s.callsSent)}`,
      [...outcomes].map(([k, n]) => `${n}× ${k}`).join(", ") || "—",
    ]);
  }
  return formatTable(table);
}

function detail(r: Row): string {
  return [
    `${r.name}:`,
    ...r.samples.map((s, i) => {
      const inFlight = s.loss?.in_flight.length ? s.loss.in_flight.join(", ") : "nothing";
      const settled = s.inFlightCall ? ` → ${settledAs(s.inFlightCall)}` : "";
      return `  #${String(i + 1).padStart(2)}  back→connected ${ms(s.backToConnectedMs).padStart(9)}  attempts ${s.loss?.attempts ?? "?"}  ${s.loss?.incarnation_changed ? "new incarnation" : "same incarnation"}  arm motions ${s.armMotions}  in flight: ${inFlight}${settled}`;
    }),
  ].join("\n");
}

async function main(): Promise<void> {
  console.log(`bench:link — ${DROPS} drops per link, every other one with a move in flight (seed ${SEED})\n`);
  const rows: Row[] = [];
  for (const make of [
    () => serialRow(),
    () => busRow("dynamixel_2", "cut"),
    () => busRow("feetech_sts", "cut"),
    () => busRestartRow("dynamixel_2"),
    () => busRestartRow("feetech_sts"),
    () => busRow("dynamixel_2", "power"),
    () => busRow("feetech_sts", "power"),
    () => rosRow(),
  ]) {
    const row = await make();
    rows.push(row);
    console.log(detail(row) + "\n");
  }
  console.log(summary(rows));
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
