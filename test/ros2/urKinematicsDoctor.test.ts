import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { packageRoot } from "../../src/config/packageRoot.js";
import { judgeUrKinematics } from "../../src/surfaces/cli/doctor/urChecks.js";

// `doctor --ros`: does the robot description carry this UR's own kinematics? ur_description puts the
// kinematics file's hash in the ros2_control tag (ur.ros2_control.xacro `kinematics/hash`); the nominal
// default_kinematics.yaml of each model has a known hash, an extracted calibration another.

const URDF = readFileSync(join(packageRoot(), "test", "fixtures", "urdf", "ur5e.urdf"), "utf8");

/** The fixture as ur.urdf.xacro would generate it with a kinematics file of this hash. */
function withHash(hash: string): string {
  return URDF.replace(
    "</robot>",
    `<ros2_control name="ur5e" type="system"><hardware><plugin>ur_robot_driver/URPositionHardwareInterface</plugin>
      <param name="robot_ip">192.168.56.101</param>
      <param name="kinematics/hash">${hash}</param>
    </hardware></ros2_control></robot>`,
  );
}

describe("doctor --ros: the UR description's kinematics parameters", () => {
  it("the ur5e's nominal hash (default_kinematics.yaml): WARN, saying Cartesian targets may be off, with ur_calibration as the fix", () => {
    const [c, ...rest] = judgeUrKinematics(withHash("calib_12788084448423163542"));
    expect(rest).toHaveLength(0);
    expect(c).toMatchObject({ check: "ur kinematics", status: "WARN" });
    expect(c!.detail).toMatch(/ur5e's nominal kinematics .*off by millimetres/);
    expect(c!.fix).toMatch(/ur_calibration calibration_correction\.launch\.py/);
    expect(c!.fix).toMatch(/kinematics_params_file:=/);
  });

  it("an extracted calibration's hash: OK, naming it", () => {
    const [c] = judgeUrKinematics(withHash("calib_4476315719357137431"));
    expect(c).toMatchObject({ check: "ur kinematics", status: "OK" });
    expect(c!.detail).toMatch(/calibrated kinematics \(kinematics\/hash calib_4476315719357137431\)/);
  });

  it("a description without UR's ros2_control hash (another robot), or none at all: nothing said", () => {
    expect(judgeUrKinematics(URDF)).toEqual([]);
    expect(judgeUrKinematics(undefined)).toEqual([]);
  });
});
