import type { ArmConfig } from "../../src/config/ArmConfig.js";
import { wire, type BridgeSession } from "./BridgeSession.js";
import type { CallPlanner } from "./CallPlanner.js";
import { findProbe } from "./findProbe.js";
import type { ProbeScenario } from "./findProbeScenario.js";
import type { OperatorDesk } from "./OperatorDesk.js";

/** What became of the probes: each should be refused, nothing sent. */
export interface ProbeTally {
  /** Probes posted (one per held unknown per restart, when one was found). */
  readonly sent: number;
  /** Refused at admission, by error code (ARMB_ERR_ENVELOPE_VIOLATION is the right answer). */
  readonly refused: Readonly<Record<string, number>>;
  /** Sent to the arm (an action id and not rejected): the judge's unsettledPathsMeet says whether it was wrong. */
  readonly accepted: number;
  /** Answered otherwise (blocked, skipped) or lost. */
  readonly other: number;
  /** Held unknowns for which no probe was found. */
  readonly notFound: number;
}

export interface CrashLoopProbesDeps {
  readonly config: ArmConfig;
  readonly planner: CallPlanner;
  readonly session: BridgeSession;
  readonly desk: OperatorDesk;
  readonly random: () => number;
  /** The run's staged scenario: its probe is tried first for the unknown it set up. */
  readonly scenario: ProbeScenario | undefined;
}

/**
 * After each restart, for every unknown motion the operator holds, one
 * call aimed to meet its path outside the workspace envelope (findProbe): the
 * envelope allows it on its own, and only a bridge that counts the unknown
 * motion in flight — across the restart — refuses it.
 */
export class CrashLoopProbes {
  #sent = 0;
  #accepted = 0;
  #other = 0;
  #notFound = 0;
  readonly #refused: Record<string, number> = {};
  /** Held action id → the restart it was last probed after. */
  readonly #probedAt = new Map<string, number>();

  readonly #d: CrashLoopProbesDeps;

  constructor(deps: CrashLoopProbesDeps) {
    this.#d = deps;
  }

  tally(): ProbeTally {
    return {
      sent: this.#sent,
      refused: { ...this.#refused },
      accepted: this.#accepted,
      other: this.#other,
      notFound: this.#notFound,
    };
  }

  /**
   * One probe per held unknown not yet probed since restart number `restart`.
   * Every held unknown became unknown in an earlier process or at this one's
   * start-up reconciliation, or is probed again after a restart: a bridge that
   * counts only the motions of its own runs in flight lets the probe through.
   */
  async probeHeld(restart: number): Promise<void> {
    const { config, planner, session, desk } = this.#d;
    for (const held of [...desk.held.values()]) {
      if (this.#probedAt.get(held.actionId) === restart) continue;
      this.#probedAt.set(held.actionId, restart);
      const others = desk.inFlight().filter((m) => m.actionId !== held.actionId);
      const scenario = this.#d.scenario;
      const first = scenario && held.path.to[scenario.unsettled.joint] !== undefined ? [scenario.probe] : [];
      const probe = findProbe({
        config,
        pose: planner.pose(),
        unsettled: held.path,
        alsoInFlight: others,
        exclude: desk.heldJoints(),
        random: this.#d.random,
        tries: 80,
        first,
      });
      if (!probe) {
        this.#notFound++;
        continue;
      }
      planner.newTurn();
      const record = planner.callTo({ [probe.joint]: probe.target }, planner.between(400, 800), { probe: true });
      this.#sent++;
      const outcome = await session.post([wire(record)], 15_000);
      session.absorb([record], outcome);
      const result = outcome.kind === "answered" ? outcome.results[0] : undefined;
      if (result?.status === "rejected") this.#refused[result.error_code] = (this.#refused[result.error_code] ?? 0) + 1;
      else if (
        (result?.status === "done" || result?.status === "failed" || result?.status === "unknown") &&
        result.action_id !== undefined
      )
        this.#accepted++;
      else this.#other++;
    }
  }
}
