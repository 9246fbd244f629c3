import { actuatorsOf } from "../../src/config/actuators.js";
import type { ArmConfig } from "../../src/config/ArmConfig.js";
import { plannedMotionSeconds } from "../../src/motion/plannedMotionSeconds.js";
import type { MotionCommand } from "../../src/transport/Transport.js";
import { FakeArm as RouteFakeArm } from "../surfaces/http/FakeArm.js";
import { FakeArm } from "../support/FakeArm.js";
import { testConfig } from "../support/testConfig.js";
import { transportContract, type ContractArm, type ContractArmOptions } from "./transportContract.js";

/**
 * The test fakes go through the same contract as the real transports, so a
 * test on a fake proves what it would prove on an arm: the executor unit
 * tests' FakeArm, and the route tests' (motions that end at once there; here
 * timed like the simulated arm's, since the contract needs motions that take
 * a while).
 */
// The other joint is the wrist roll: wrist_2 turned with the elbow at 1.2 rad (the quick move, in
// flight beside it) brings wrist_2_link within the envelope's margin of forearm_link, and is refused.
const MOVES = { slowMove: { elbow: 0.4 }, quickMove: { elbow: 1.2 }, otherJointMove: { wrist_3: 0.4 } };
const LINK_LOSS = {
  idleDropMs: 400,
  midMotion: { move: { elbow: 0.4 }, speed: 0.5, dropAfterMs: 150, dropMs: 900 },
  powerLoss: { move: { elbow: 0.4 }, speed: 0.2, afterMs: 400, outageMs: 500 },
};

/**
 * The motions are timed as firmware-sim times them (one shared duration), and
 * the fakes say so as the serial transport does: the envelope bounds a motion
 * in flight by that timing, not by every joint's max_velocity.
 */
const SHARED_DURATION = { kind: "shared_duration" } as const;

/** The simulated arm's own profile (firmware-sim runs the same model). */
function profileMs(config: ArmConfig): (command: MotionCommand, from: Readonly<Record<string, number>>) => number {
  const actuators = new Map(actuatorsOf(config).map((a) => [a.name, a]));
  return (command, from) => plannedMotionSeconds(command.targets, command.speed, actuators, from).seconds * 1000;
}

function onFake(make: (config: ArmConfig, options: ContractArmOptions) => FakeArm) {
  return async (options: ContractArmOptions): Promise<ContractArm> => {
    const config = testConfig();
    const arm = make(config, options);
    await arm.open();
    return {
      config,
      transport: arm,
      motionStarts: () => arm.effects.length,
      conflicts: () => arm.overlaps(),
      faults: {
        dropLink: (ms) => arm.dropLink(ms),
        powerLoss: (ms) => arm.powerLoss(ms),
        replaceWithOtherDevice: () => arm.replaceWithOtherDevice(),
        otherDeviceMotions: () => arm.otherDeviceMotions(),
      },
      close: () => arm.close(),
    };
  };
}

transportContract(
  "test FakeArm (executor unit tests)",
  onFake(
    (config, { reconnect }) => new FakeArm(config, { motionMs: profileMs(config), timing: SHARED_DURATION, reconnect }),
  ),
  MOVES,
  LINK_LOSS,
);

transportContract(
  "test FakeArm of the route tests (timed)",
  onFake(
    (config, { reconnect }) =>
      new RouteFakeArm(config, { motionMs: profileMs(config), timing: SHARED_DURATION, reconnect }),
  ),
  MOVES,
  LINK_LOSS,
);
