import { z } from "zod";

/** The `bus:` section: a servo bus with no firmware in between (docs/servo-bus.md). */
export const busSection = {
  bus: z
    .object({
      protocol: z.enum(["dynamixel_2", "feetech_sts"]).describe("The servos' protocol."),
      baud: z.number().int().min(300).max(10_000_000).default(1_000_000).describe("The bus's baud rate."),
      calibration: z
        .string()
        .min(1)
        .optional()
        .describe(
          "LeRobot calibration JSON (`{motor: {id, drive_mode, homing_offset, range_min, range_max}}`), relative to the config file.",
        ),
    })
    .strict()
    .optional()
    .describe("A servo bus with no firmware in between; absent for firmware and ROS arms."),
};
