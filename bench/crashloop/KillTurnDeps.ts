import type { EffectLine } from "../../firmware-sim/effectsJudge.js";
import type { ArmConfig } from "../../src/config/ArmConfig.js";
import type { BridgeSession } from "./BridgeSession.js";
import type { CallPlanner } from "./CallPlanner.js";
import type { ProbeScenario } from "./findProbeScenario.js";
import type { OperatorDesk } from "./OperatorDesk.js";

/** What setting up a kill's turn (setUpKillTurn, stageProbeableMotion) works with. */
export interface KillTurnDeps {
  readonly config: ArmConfig;
  readonly planner: CallPlanner;
  readonly session: BridgeSession;
  readonly desk: OperatorDesk;
  readonly random: () => number;
  readonly effects: () => readonly EffectLine[];
  readonly waitFor: (predicate: (events: readonly EffectLine[]) => boolean, timeoutMs: number) => Promise<boolean>;
  readonly watchdogMs: number;
  /** Where to stage the watchdog kill's long motion so a probe can meet it (findProbeScenario). */
  readonly scenario: ProbeScenario | undefined;
}
