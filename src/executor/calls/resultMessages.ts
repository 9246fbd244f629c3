/**
 * The words a model reads. They follow the seed's rules: `unknown` forbids
 * re-running and asks for a person; `failed` says re-running is allowed only
 * because there is positive evidence nothing happened; a timeout says it was
 * a timeout, not an empty result and not a failure.
 */
export const resultMessages = {
  done(
    tool: string,
    actionId: string | undefined,
    how: "completion" | "observation" | "operator",
    timedOut: boolean,
    detail?: string,
  ): string {
    const id = actionId ? ` (action_id=${actionId})` : "";
    // A gripper that closed on an object did what it was asked, short of the commanded width: say where.
    const what = detail ?? "the target was reached";
    switch (how) {
      case "completion":
        return `${tool} completed${id}: ${what}. Proceed to the next step.`;
      case "observation":
        return (
          `${tool} completed${id}: ${what}, confirmed by observing the arm` +
          (timedOut ? " after our wait timed out (a timeout only ended our waiting; the motion went on)." : ".") +
          " Proceed to the next step."
        );
      case "operator":
        // Confirmed rows read their words from CONFIRM_OUTCOME_RULES; this is for callers without a row.
        return `${tool}${id} was confirmed done by an operator. Proceed to the next step.`;
    }
  },
  /**
   * The target pose holds, but this command did not move the arm there. Not
   * "completed": the model must never be told a motion ran that did not.
   */
  targetHolds(tool: string, actionId: string, ran: "never" | "unknowable"): string {
    return ran === "never"
      ? `${tool} (action_id=${actionId}): the arm is already at the target; the command never ran (the arm voided it, so it never will) and nothing moved. Proceed to the next step.`
      : `${tool} (action_id=${actionId}): the arm is at the target, observed after it restarted; whether this command itself moved it cannot be told, and it can no longer start. Proceed to the next step.`;
  },
  failed(tool: string, actionId: string | undefined, reason: string): string {
    return `${tool} failed${actionId ? ` (action_id=${actionId})` : ""}: ${reason}. There is positive evidence that nothing moved, so re-running is allowed.`;
  },
  unknown(tool: string, actionId: string, why: string, resources: readonly string[]): string {
    return (
      `The outcome of ${tool} could not be confirmed (action_id=${actionId}): ${why}. ` +
      `Do NOT re-run this or any motion on ${resources.join(", ")}. ` +
      "Ask the user (the operator) to check the arm and confirm what happened, and wait until they do."
    );
  },
  /** A motion a confirmed halt stopped part-way: where it is, and that nothing moves until an operator releases the halt. */
  stoppedByHalt(
    tool: string,
    actionId: string,
    who: string,
    pose: Readonly<Record<string, number>> | undefined,
  ): string {
    const at =
      pose && Object.keys(pose).length > 0
        ? `at ${Object.entries(pose)
            .map(([k, v]) => `${k}=${v.toFixed(3)}`)
            .join(", ")}`
        : "at a pose the bridge did not receive (read get_arm_state)";
    return (
      `${tool} (action_id=${actionId}) was stopped part-way: ${who} halted the arm ${at}, short of its target. ` +
      "It may not move until an operator releases the halt: every motion is refused (blocked) until then. Once released, plan the next motion from this pose."
    );
  },
  /** A halt the arm did not confirm: the arm may still be moving. */
  haltUnconfirmed(what: string, why: string): string {
    return (
      `The halt of ${what} was NOT confirmed by the arm (${why}): the arm may still be moving. ` +
      "Do not send motion; ask the user (the operator) to check the arm now and use the emergency stop if it moves. Every motion is refused until an operator releases the halt."
    );
  },
  rejected(tool: string, issues: string): string {
    return `${tool} was rejected before anything was sent: ${issues}. Fix the arguments and call again.`;
  },
  approvalDeclined(tool: string, operator: string, note: string | null): string {
    return `An operator (${operator}) declined this motion${note ? `: ${note}` : ""}. Nothing was sent (${tool}). Do not retry it unchanged; ask the user what they want instead.`;
  },
  /** A HALT declined the request while it waited: nothing asked before a halt runs after it. */
  approvalDeclinedByHalt(tool: string, haltId: string, why: string): string {
    return (
      `This motion (${tool}) was waiting for an operator's approval when the arm was halted (${haltId}): ${why}. Nothing was sent, and it will not run. ` +
      "Every motion is refused until an operator releases the halt; after that, ask the user before asking for this motion again."
    );
  },
  approvalExpired(tool: string, timeoutMs: number): string {
    const s = timeoutMs / 1000;
    return `No operator approved within ${Number.isInteger(s) ? s : s.toFixed(1)} s; nothing was sent (${tool}). Ask the user whether someone is at the arm to approve it before calling again.`;
  },
  approvalWithdrawn(tool: string, reason: string): string {
    return `This motion (${tool}) was waiting for an operator's approval when the wait ended (${reason}); nothing was sent.`;
  },
  skipped(tool: string): string {
    return `${tool} was skipped: the run's time budget was spent before it could start. Nothing was sent to the arm. This is a timeout, not a failure of the arm.`;
  },
  ended(tool: string, reason: string): string {
    return `${tool} ended before it started: ${reason}. Nothing was sent to the arm. It was not a timeout and not a failure of the arm.`;
  },
  refusedWhileHalted(tool: string, haltId: string, why: string): string {
    return `${tool} is refused: the bridge is halted (${haltId}: ${why}). Nothing was sent. Do not retry until the user (the operator) releases the halt; ask them to.`;
  },
  blocked(tool: string, resources: readonly string[], actionIds: readonly string[]): string {
    return (
      `${tool} is blocked: ${resources.join(", ")} ${resources.length === 1 ? "is" : "are"} held by unconfirmed action(s) ${actionIds.join(", ")}. ` +
      "Nothing was sent. Do not retry until the user (the operator) confirms those actions; ask them to."
    );
  },
} as const;
