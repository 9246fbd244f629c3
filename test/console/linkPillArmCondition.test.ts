import { describe, expect, it } from "vitest";
import { armConditionText } from "../../console/armConditionWords.js";
import type { LinkView } from "../../console/wire.js";
import { linkWithCondition } from "../../src/transport/ros2/urArmCondition.js";
import { PROGRAM_ADVICE, SAFETY_STOP_ADVICE } from "../../src/transport/ros2/UrRobotStatus.js";

// /v1/state's link of a UR that answers but cannot move: `connected`, with error_code and detail as the
// transport makes them (linkWithCondition). The console's link pill says so, with UR's advice.

const SINCE = Date.UTC(2026, 11, 8, 1, 0, 0);

describe("the console's link pill for an arm that cannot move", () => {
  it("ARMB_ERR_ARM_SAFETY_STOP: SAFETY STOP with the robot's words and UR's advice (unlock, stop and restart)", () => {
    const link = linkWithCondition(
      { state: "connected", since: SINCE },
      { kind: "safety_stop", detail: "protective stop (safety mode PROTECTIVE_STOP)", advice: SAFETY_STOP_ADVICE },
    ) as LinkView;
    expect(link.error_code).toBe("ARMB_ERR_ARM_SAFETY_STOP");
    const text = armConditionText(link);
    expect(text).toBe(
      `ARM LINK: CONNECTED, SAFETY STOP — protective stop (safety mode PROTECTIVE_STOP). ${SAFETY_STOP_ADVICE}`,
    );
    expect(text).toMatch(/unlock the stop on the teach pendant/);
  });

  it("ARMB_ERR_ARM_NOT_READY: ARM NOT READY with what to press", () => {
    const link = linkWithCondition(
      { state: "connected", since: SINCE },
      { kind: "not_ready", detail: "the External Control program is not running", advice: PROGRAM_ADVICE },
    ) as LinkView;
    expect(link.error_code).toBe("ARMB_ERR_ARM_NOT_READY");
    expect(armConditionText(link)).toBe(
      `ARM LINK: CONNECTED, ARM NOT READY — the External Control program is not running. ${PROGRAM_ADVICE}`,
    );
  });

  it("a connected link without a code, or another code, or a link not connected: nothing to add", () => {
    expect(armConditionText({ state: "connected", since: SINCE })).toBeUndefined();
    expect(
      armConditionText({ state: "reconnecting", since: SINCE, error_code: "ARMB_ERR_DEVICE_REPLACED" }),
    ).toBeUndefined();
    expect(armConditionText({ state: "down", since: SINCE, error_code: "ARMB_ERR_ARM_NOT_READY" })).toBeUndefined();
  });
});
