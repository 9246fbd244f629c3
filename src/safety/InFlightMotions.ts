/** A motion that may be moving the arm now: its joints' values when admitted and its targets. */
export interface InFlightMotion {
  readonly actionId: string;
  readonly from: Readonly<Record<string, number>>;
  readonly to: Readonly<Record<string, number>>;
  /**
   * The fastest each of its axes moves (rad/s), as sent: the tool-speed limit
   * adds it to a new motion's. Absent (a motion recorded before, or on a
   * transport that does not say): each axis's max_velocity is assumed.
   */
  readonly peakVelocity?: Readonly<Record<string, number>>;
}

interface Entry extends InFlightMotion {
  readonly resources: readonly string[];
  /** Its run ended with the outcome unknown: it may still be moving until an operator resolves it. */
  unresolved: boolean;
}

/**
 * The motions admitted and not yet known to be over, so the envelope check of
 * a new motion can account for the joints they move (checkMotionEnvelope's
 * `inFlight`). A motion is added once its path passed the envelope, before
 * its intent is recorded, and removed when its run ends — unless it ended
 * `unknown`: then it stays until the quarantine no longer holds its
 * resources, because until someone confirms it the arm may still be
 * following it.
 */
export class InFlightMotions {
  readonly #entries = new Map<string, Entry>();

  add(motion: InFlightMotion, resources: readonly string[]): void {
    this.#entries.set(motion.actionId, { ...motion, resources, unresolved: false });
  }

  end(actionId: string, outcome: { readonly unresolved: boolean }): void {
    const e = this.#entries.get(actionId);
    if (!e) return;
    if (outcome.unresolved) e.unresolved = true;
    else this.#entries.delete(actionId);
  }

  /** The motions to account for; `stillQuarantined(actionId, resources)` prunes resolved unknowns. */
  current(stillQuarantined: (actionId: string, resources: readonly string[]) => boolean): InFlightMotion[] {
    for (const [id, e] of this.#entries) if (e.unresolved && !stillQuarantined(id, e.resources)) this.#entries.delete(id);
    return [...this.#entries.values()].map(({ actionId, from, to, peakVelocity }) => (peakVelocity === undefined ? { actionId, from, to } : { actionId, from, to, peakVelocity }));
  }
}
