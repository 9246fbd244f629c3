import { describe, expect, it } from "vitest";
import { motionIssues, refuseUnsendable } from "../../src/transport/motionProblem.js";
import { BusServos } from "../../src/transport/bus/BusServos.js";
import { protocolNamed } from "../../src/protocol/bus/index.js";
import { FLOAT32_WIRE, FLOAT64_WIRE } from "../../src/transport/WireNumbers.js";
import { busTestConfig } from "../support/busTestConfig.js";

const RANGE = { min: -2.6, max: 2.6 };
const codes = (targets: Record<string, unknown>, speed: unknown, wire = FLOAT64_WIRE, minSpeed?: number) =>
  motionIssues({ targets, speed }, (axis) => (axis === "elbow" ? RANGE : undefined), { wire, minSpeed }).map(
    (i) => i.code,
  );

/** One rule set before anything is sent, each wire comparing as it carries numbers. */
describe("motionIssues: the pre-send rules every transport and plan admission share", () => {
  it.each([
    ["no target", {}, 0.5, ["empty_plan"]],
    ["an unknown axis", { tail: 0.1 }, 0.5, ["unknown_axis"]],
    ["NaN", { elbow: Number.NaN }, 0.5, ["not_finite"]],
    ["a string", { elbow: "1" }, 0.5, ["not_finite"]],
    ["beyond the limit", { elbow: 2.61 }, 0.5, ["outside_limits"]],
    ["speed 0", { elbow: 0.1 }, 0, ["speed_out_of_range"]],
    ["speed above 1", { elbow: 0.1 }, 1.5, ["speed_out_of_range"]],
  ])("%s is refused on every wire", (_what, targets, speed, expected) => {
    for (const wire of [FLOAT64_WIRE, FLOAT32_WIRE]) expect(codes(targets, speed, wire)).toEqual(expected);
  });

  it("float32 (the serial wire): a target beyond float32's range is not finite as carried; one a hair past the limit rounds onto it", () => {
    expect(codes({ elbow: 1e39 }, 0.5, FLOAT32_WIRE)).toEqual(["not_finite"]);
    expect(codes({ elbow: 1e39 }, 0.5, FLOAT64_WIRE)).toEqual(["outside_limits"]);
    // 2.6 and the next float64 above it are one float32: the device would compare equal, the host still refuses it as given.
    expect(codes({ elbow: 2.6000000000000005 }, 0.5, FLOAT32_WIRE)).toEqual(["outside_limits"]);
    // A speed that underflows to 0 as float32 is no speed on that wire.
    expect(codes({ elbow: 0.1 }, 1e-50, FLOAT32_WIRE)).toEqual(["speed_out_of_range"]);
    expect(codes({ elbow: 0.1 }, 1e-50, FLOAT64_WIRE)).toEqual([]);
  });

  it("whole servo counts (a bus): a target within the limit that rounds to the limit's own count is sent; limits compare as counts too", () => {
    const servos = new BusServos(busTestConfig("feetech_sts"), protocolNamed("feetech_sts"));
    const elbow = servos.actuators.get("elbow")!;
    const rangeOf = (axis: string) => servos.actuators.get(axis);
    expect(motionIssues({ targets: { elbow: elbow.max }, speed: 0.5 }, rangeOf, { wire: servos.wire })).toEqual([]);
    expect(
      motionIssues({ targets: { elbow: elbow.max + 1e-9 }, speed: 0.5 }, rangeOf, { wire: servos.wire }).map(
        (i) => i.code,
      ),
    ).toEqual(["outside_limits"]);
    // The wire's view of a target: the position of the count the servo is given.
    expect(Math.abs(servos.wire.target("elbow", 0.123456) - 0.123456)).toBeLessThanOrEqual(Math.PI / 4096);
  });

  it("plan admission's lower bound is limits.min_speed; a transport's is anything above 0", () => {
    expect(codes({ elbow: 0.1 }, 0.01, FLOAT64_WIRE, 0.05)).toEqual(["speed_out_of_range"]);
    expect(codes({ elbow: 0.1 }, 0.01, FLOAT64_WIRE)).toEqual([]);
  });

  it("a transport refuses unsent while its link is not connected, with ARMB_ERR_LINK_DOWN naming the state", () => {
    const end = refuseUnsendable({ actionId: "a1", targets: { elbow: 0.1 }, speed: 0.5 }, () => RANGE, {
      transport: "serial",
      link: { state: "reconnecting", since: 0, attempt: 3, detail: "link lost: ECONNRESET" },
    });
    expect(end).toMatchObject({ kind: "refused", error: { code: "ARMB_ERR_LINK_DOWN" } });
    expect(
      refuseUnsendable({ actionId: "a1", targets: { elbow: 0.1 }, speed: 0.5 }, () => RANGE, {
        transport: "serial",
        link: { state: "connected", since: 0 },
      }),
    ).toBeUndefined();
  });
});
