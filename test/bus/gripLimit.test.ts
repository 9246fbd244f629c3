import { afterEach, describe, expect, it } from "vitest";
import { startBusSimulator, type RunningBusSimulator } from "../../firmware-sim/bus/startBusSimulator.js";
import { MemoryEffects } from "../../firmware-sim/EffectsLog.js";
import { createServoBusTransport, type ServoBusTransport } from "../../src/transport/bus/index.js";
import { BUS_PROTOCOLS, protocolNamed, type BusProtocolName } from "../../src/protocol/bus/index.js";
import { busTestConfig } from "../support/busTestConfig.js";

const GRIPPER = 7;
let open: { sim: RunningBusSimulator; transport: ServoBusTransport }[] = [];
afterEach(async () => {
  for (const r of open) {
    await r.transport.close();
    await r.sim.close();
  }
  open = [];
});

async function rig(
  protocol: BusProtocolName,
): Promise<{ sim: RunningBusSimulator; transport: ServoBusTransport; config: ReturnType<typeof busTestConfig> }> {
  const config = busTestConfig(protocol);
  const sim = await startBusSimulator({
    bus: protocol,
    armConfig: config,
    link: "tcp",
    port: 0,
    seed: 2,
    effects: new MemoryEffects(),
  });
  const transport = createServoBusTransport(config, sim.link);
  open.push({ sim, transport });
  return { sim, transport, config };
}

describe.each(BUS_PROTOCOLS)("the gripper's force cap from config on %s", (protocol) => {
  const table = protocolNamed(protocol).table;
  const configured = protocol === "dynamixel_2" ? 300 : 500;

  it("is written before torque goes on: Current_Limit in current-based position mode (Dynamixel), Torque_Limit (Feetech)", async () => {
    const { sim, transport } = await rig(protocol);
    const gripper = sim.bus.servos.get(GRIPPER)!;
    expect(gripper.get(table.gripLimit)).not.toBe(configured);
    await transport.open(AbortSignal.timeout(5000));
    expect(gripper.torque).toBe(true);
    expect(gripper.get(table.gripLimit)).toBe(configured);
    if (table.currentBasedPositionMode !== undefined)
      expect(gripper.get(table.operatingMode)).toBe(table.currentBasedPositionMode);
    expect(transport.latestStatus()!.faults).toEqual([]);
  });

  it("a gripper found holding torque without the cap: rewritten where the register is RAM (Feetech), a named fault where it is EEPROM and cannot be written under torque (Dynamixel)", async () => {
    const { sim, transport } = await rig(protocol);
    const gripper = sim.bus.servos.get(GRIPPER)!;
    // Another program (or a bridge before a restart) armed it with the power-on limit.
    gripper.set(table.goalPosition, Math.round(gripper.position));
    gripper.set(table.torqueEnable, 1);
    const before = gripper.get(table.gripLimit);
    await transport.open(AbortSignal.timeout(5000));
    await new Promise((r) => setTimeout(r, 50));
    if (table.gripLimitNeedsTorqueOff) {
      expect(gripper.get(table.gripLimit)).toBe(before);
      expect(transport.latestStatus()!.faults.join(" ")).toMatch(/gripper.*current limit/);
    } else {
      expect(gripper.get(table.gripLimit)).toBe(configured);
      expect(transport.latestStatus()!.faults).toEqual([]);
    }
  });
});
