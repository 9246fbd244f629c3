import { randomBytes } from "node:crypto";

/** `act_` + time (base36) + 48 random bits: sortable, unique, 23 ASCII bytes (fits the serial protocol). */
export function newActionId(): string {
  return `act_${Date.now().toString(36)}${randomBytes(6).toString("hex")}`;
}
