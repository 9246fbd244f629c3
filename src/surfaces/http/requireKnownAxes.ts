import type { ArmConfig } from "../../config/ArmConfig.js";
import { actuatorsOf } from "../../config/actuators.js";
import { ArmbridgeError } from "../../errors.js";
import { quoteNames } from "../../validation/nameChoices.js";

/** Refuses axis names the arm does not have (ARMB_ERR_AXIS_UNKNOWN), naming the ones it has. */
export function requireKnownAxes(config: ArmConfig, names: readonly string[] | undefined, where: string): void {
  const choices = actuatorsOf(config).map((a) => a.name);
  const unknown = (names ?? []).filter((n) => !choices.includes(n));
  if (unknown.length > 0)
    throw new ArmbridgeError("ARMB_ERR_AXIS_UNKNOWN", {
      where,
      names: quoteNames(unknown),
      list: choices.join(", "),
      choices,
    });
}
