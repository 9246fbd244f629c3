import { groundTruthOf, motionIntervals, type EffectLine } from "../../firmware-sim/effectsJudge.js";
import type { ArmConfig } from "../../src/config/ArmConfig.js";
import type { InFlightMotion } from "../../src/safety/InFlightMotions.js";
import { ApiError } from "../../src/wire/client/ApiError.js";
import type { BridgeSession } from "./BridgeSession.js";
import type { EffectsTail } from "./EffectsTail.js";
import { readLedger } from "./readLedger.js";

const OPERATOR = "crashloop";

/** An unknown motion the operator leaves unconfirmed for a while, so that it stays pending across restarts. */
export interface HeldUnknown {
  readonly actionId: string;
  /** The chain joints it moved, as the effects log has them. */
  readonly joints: readonly string[];
  /** Its whole path, from where it really started to its commanded target (the effects log's motion_start). */
  readonly path: InFlightMotion;
  /** Confirmed at the first settle of this kill index or later. */
  readonly releaseAtKill: number;
  /** Restarts of the bridge it has stayed unknown through. */
  restartsPending: number;
}

export interface OperatorDeskDeps {
  readonly config: ArmConfig;
  readonly session: BridgeSession;
  readonly effects: EffectsTail;
  readonly random: () => number;
  readonly waitFor: (predicate: (events: readonly EffectLine[]) => boolean, timeoutMs: number) => Promise<boolean>;
  /** Leave unknown motions that moved the arm unconfirmed for 1–2 kills (default on). */
  readonly holdUnknowns: boolean;
}

/**
 * The operator path: every `unknown` row is confirmed through
 * POST /v1/actions/:id/confirm with what the arm really did (the effects
 * log), once its motion (if any) has ended — but an unknown that moved the
 * arm is first left pending for one or two kills, so that it is still
 * unsettled when the bridge restarts: the bridge must go on counting it in
 * flight (and holding its joints) until it is confirmed.
 */
export class OperatorDesk {
  /** Unknown rows an operator confirmed. */
  confirms = 0;
  /** Unknown motions that stayed pending across at least one restart. */
  heldAcrossRestarts = 0;
  readonly held = new Map<string, HeldUnknown>();
  readonly #d: OperatorDeskDeps;
  readonly #chainJoints: ReadonlySet<string>;

  constructor(deps: OperatorDeskDeps) {
    this.#d = deps;
    this.#chainJoints = new Set(deps.config.arm.joints.map((j) => j.name));
  }

  /** The bridge came back: every held unknown has now stayed pending across a restart. */
  noteRestart(): void {
    for (const h of this.held.values()) if (h.restartsPending++ === 0) this.heldAcrossRestarts++;
  }

  /** Joints held unknown motions quarantine. */
  heldJoints(): Set<string> {
    return new Set([...this.held.values()].flatMap((h) => h.joints));
  }

  /** The held motions' paths, as the bridge must count them. */
  inFlight(): InFlightMotion[] {
    return [...this.held.values()].map((h) => h.path);
  }

  /** Confirms unknown rows due (all of them when `final`), and holds new ones that moved the arm. */
  async settle(at: { readonly kill: number; readonly final?: boolean }): Promise<void> {
    const { rows } = await readLedger(this.#d.session.api(), [], { state: "unknown" });
    const unknown = new Set(rows.map((r) => r.action_id));
    // Settled meanwhile by a later observation: nothing left to hold.
    for (const id of this.held.keys()) if (!unknown.has(id)) this.held.delete(id);
    for (const row of rows) {
      const h = this.held.get(row.action_id);
      if (h && !at.final && at.kill < h.releaseAtKill) continue;
      const path = h ? undefined : this.#pathOf(row.action_id);
      if (!h && path && this.#d.holdUnknowns && !at.final) {
        this.held.set(row.action_id, {
          actionId: row.action_id,
          joints: Object.keys(path.to),
          path,
          releaseAtKill: at.kill + 1 + Math.floor(this.#d.random() * 2),
          restartsPending: 0,
        });
        continue;
      }
      await this.#confirm(row.action_id);
      this.held.delete(row.action_id);
    }
  }

  /** The path an unknown motion physically took (its chain joints), or undefined when it never started. */
  #pathOf(actionId: string): InFlightMotion | undefined {
    const start = this.#d.effects.read().find((e) => e.event === "motion_start" && e.action_id === actionId);
    if (!start?.from || !start.to) return undefined;
    const joints = start.joints.filter(
      (j) => this.#chainJoints.has(j) && start.from?.[j] !== undefined && start.to?.[j] !== undefined,
    );
    if (joints.length === 0) return undefined;
    return {
      actionId,
      from: Object.fromEntries(joints.map((j) => [j, start.from![j]!])),
      to: Object.fromEntries(joints.map((j) => [j, start.to![j]!])),
    };
  }

  async #confirm(actionId: string): Promise<void> {
    await this.#d.waitFor(
      (events) => !motionIntervals(events).some((m) => m.actionId === actionId && m.end === Infinity),
      15_000,
    );
    const outcome = groundTruthOf(this.#d.effects.read(), actionId) === "reached" ? "done" : "not_done";
    try {
      await this.#d.session.api().call("confirmAction", {
        params: { id: actionId },
        body: { outcome, operator: OPERATOR, note: "from firmware-sim's effects log" },
      });
      this.confirms++;
    } catch (error) {
      // A later observation may have settled it in the meantime; anything else is the harness's problem.
      if (!(error instanceof ApiError) || error.code !== "ARMB_ERR_ACTION_NOT_UNKNOWN") throw error;
    }
  }
}
