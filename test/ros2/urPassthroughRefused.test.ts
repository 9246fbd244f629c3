import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/loadConfig.js";
import { packageRoot } from "../../src/config/packageRoot.js";
import { ArmbridgeError } from "../../src/errors.js";
import { urDriverDouble } from "../doubles/robotDoubles.js";
import { useRos2Double } from "./ros2OnDoubleHarness.js";

// UR's passthrough_trajectory_controller rejects a goal while one runs, so a halt's hold goal would be
// refused and the arm not stopped: armbridge refuses to start on it, naming the controller and the fix.

const { start } = useRos2Double();
const UR_PATH = join(packageRoot(), "config", "ur5e-ros2.yaml");

async function startError(run: () => Promise<unknown>): Promise<ArmbridgeError> {
  const error = await run().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ArmbridgeError);
  return error as ArmbridgeError;
}

describe("UR's passthrough trajectory controller is refused at start-up", () => {
  it("named in the config: refused before anything is sent, the controller and the fix named", async () => {
    const config = loadConfig(UR_PATH);
    const renamed = {
      ...config,
      arm: {
        ...config.arm,
        controllers: config.arm.controllers.map((c) => ({ ...c, name: "passthrough_trajectory_controller" })),
      },
      ros2: { ...config.ros2!, controllers: [] },
    };
    const e = await startError(() => start(undefined, urDriverDouble(renamed, 1), renamed));
    expect(e.code).toBe("ARMB_ERR_ROS_CONTROLLER_UNSUITABLE");
    expect(e.message).toMatch(/passthrough_trajectory_controller cannot be driven safely/);
    expect(e.message).toMatch(/rejects a goal while a trajectory runs/);
    expect(e.message).toMatch(/Fix: use scaled_joint_trajectory_controller/);
  });

  it("under another name, known by its parameters: refused when the transport opens", async () => {
    const config = loadConfig(UR_PATH);
    const sim = urDriverDouble(config, 1);
    const controllers = (sim.controllers ?? []).map((c) => ({ ...c, kind: "ur_passthrough" as const }));
    const e = await startError(() => start(undefined, { ...sim, controllers }, config));
    expect(e.code).toBe("ARMB_ERR_ROS_CONTROLLER_UNSUITABLE");
    expect(e.message).toMatch(/scaled_joint_trajectory_controller cannot be driven safely/);
    expect(e.message).toMatch(/by its parameters/);
    expect(e.message).toMatch(/a halt could not stop the arm/);
  });
});
