import { whoHalted } from "../../ledger/HaltRow.js";
import { resultMessages } from "./resultMessages.js";
import type { Verdict } from "../motion/Verdict.js";

export interface SettlementWords {
  readonly tool: string;
  readonly actionId: string;
  readonly resources: readonly string[];
  readonly verdict: Verdict;
  readonly by: "completion" | "observation";
  readonly timedOut: boolean;
  /** The pose the verdict was judged on (where a halted motion stopped). */
  readonly pose?: Readonly<Record<string, number>> | undefined;
  /** The axes the motion commanded: the pose words name these. */
  readonly targets?: Readonly<Record<string, number>> | undefined;
  /** Set when a halt was sent while the motion ran (haltWords): said first, so the model knows why it ended where it did. */
  readonly halted?: string | undefined;
}

/** The words a model reads for a settled motion: a function of the verdict alone, so they can never contradict the state. */
export function settlementMessage(w: SettlementWords): string {
  const words = verdictWords(w);
  return w.halted ? `${w.halted.charAt(0).toUpperCase()}${w.halted.slice(1)}. ${words}` : words;
}

function verdictWords(w: SettlementWords): string {
  const v = w.verdict;
  switch (v.kind) {
    case "reached":
      return resultMessages.done(w.tool, w.actionId, w.by, w.timedOut, v.detail);
    case "target_holds":
      return resultMessages.targetHolds(w.tool, w.actionId, v.ran);
    case "not_moved":
      return resultMessages.failed(w.tool, w.actionId, v.reason);
    case "interrupted":
      return resultMessages.unknown(w.tool, w.actionId, `${v.detail} — short of its target`, w.resources);
    case "undetermined":
      return resultMessages.unknown(w.tool, w.actionId, v.why, w.resources);
    case "halted":
      return resultMessages.stoppedByHalt(w.tool, w.actionId, whoHalted(v.halt), commandedOnly(w.pose, w.targets));
  }
}

function commandedOnly(
  pose: Readonly<Record<string, number>> | undefined,
  targets: Readonly<Record<string, number>> | undefined,
): Readonly<Record<string, number>> | undefined {
  if (!pose || !targets) return pose;
  return Object.fromEntries(Object.entries(pose).filter(([axis]) => axis in targets));
}
