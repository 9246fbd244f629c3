import type { SimServo } from "./SimServo.js";

/**
 * Which instructions a servo answers with a status packet, by its status
 * return level (Dynamixel X Status_Return_Level(68): 0 ping only, 1 ping and
 * reads, 2 everything — e-Manual control_table_status_return_lv.md; Feetech
 * Response_Status_Level(8): 0 reads and pings only, 1 everything — Feetech
 * STS memory table). A broadcast is never answered whatever the level.
 */
export function answersWrites(s: SimServo): boolean {
  const srl = s.table.setup.statusReturnLevel;
  return s.get(srl.register) >= srl.answersAll;
}

export function answersReads(s: SimServo): boolean {
  return s.table.family !== "dynamixel_x" || s.get(s.table.setup.statusReturnLevel.register) > 0;
}
