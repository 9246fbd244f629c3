import { describe, expect, it } from "vitest";
import { judgeUrStatus } from "../../src/surfaces/cli/doctor/urChecks.js";
import { PROGRAM_ADVICE, SAFETY_STOP_ADVICE } from "../../src/transport/ros2/UrRobotStatus.js";

// doctor --ros on a UR: what io_and_status_controller reports, judged (UrRobotStatus reads the topics).
describe("doctor --ros: a UR's safety mode, robot mode and program", () => {
  it("says nothing on a graph without the UR status topics", () => {
    expect(judgeUrStatus({}, undefined)).toEqual([]);
  });

  it("OK with each reading when the robot is ready", () => {
    const [c] = judgeUrStatus({ safetyMode: "NORMAL", robotMode: "RUNNING", programRunning: true }, undefined);
    expect(c).toMatchObject({ check: "ur", status: "OK" });
    expect(c!.detail).toBe("safety mode NORMAL, robot mode RUNNING, program running");
  });

  it("FAIL with the cause and the fix when the program is not running or a stop is latched", () => {
    const [notRunning] = judgeUrStatus(
      { safetyMode: "NORMAL", robotMode: "RUNNING", programRunning: false },
      { kind: "not_ready", detail: "the External Control program is not running", advice: PROGRAM_ADVICE },
    );
    expect(notRunning).toMatchObject({ status: "FAIL", fix: PROGRAM_ADVICE });
    expect(notRunning!.detail).toMatch(/program not running/);
    const [stopped] = judgeUrStatus(
      { safetyMode: "PROTECTIVE_STOP", robotMode: "RUNNING", programRunning: true },
      { kind: "safety_stop", detail: "the robot is in safety mode PROTECTIVE_STOP", advice: SAFETY_STOP_ADVICE },
    );
    expect(stopped).toMatchObject({ status: "FAIL", fix: SAFETY_STOP_ADVICE });
    expect(stopped!.fix).toMatch(/stop the External Control program and start it again/);
  });
});
