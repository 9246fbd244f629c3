import { resultMessages } from "./resultMessages.js";
import type { Verdict } from "./Verdict.js";

export interface SettlementWords {
  readonly tool: string;
  readonly actionId: string;
  readonly resources: readonly string[];
  readonly verdict: Verdict;
  readonly by: "completion" | "observation";
  readonly timedOut: boolean;
}

/** The words a model reads for a settled motion: a function of the verdict alone, so they can never contradict the state. */
export function settlementMessage(w: SettlementWords): string {
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
  }
}
