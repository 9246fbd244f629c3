/**
 * One straight joint-space segment a motion in flight may be anywhere along:
 * its joints' values when admitted and its targets. A motion is usually one
 * segment; a motion whose start was never recorded is one segment per joint,
 * each spanning the joint's whole range (see inFlightOfRow).
 */
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
  /** Its outcome is unknown and waits for an operator: it will not end by itself (refusals say so). */
  readonly awaitingOperator?: boolean;
}

interface Entry {
  readonly segments: readonly InFlightMotion[];
  /**
   * The motion is not known to be over: its run ended `unknown` (or was left
   * `started` by a shutdown), or it was read back from the ledger. It stays
   * until `stillUnsettled` says otherwise, because until someone settles or
   * confirms it the arm may still be following it.
   */
  unresolved: boolean;
}

/**
 * The motions admitted and not yet known to be over, so the envelope check of
 * a new motion can account for the joints they move (checkMotionEnvelope's
 * `inFlight`). A motion is added once its path passed the envelope, before
 * its intent is recorded, and removed when its run ends — unless it ended
 * `unknown`. Motions the ledger holds `started` or `unknown` from before this
 * process (a restart, an adopted ledger, a link that came back) are restored
 * from their rows, unresolved from the start.
 */
export class InFlightMotions {
  readonly #entries = new Map<string, Entry>();

  /** A motion this process is about to send. */
  add(motion: InFlightMotion): void {
    this.#entries.set(motion.actionId, { segments: [motion], unresolved: false });
  }

  /**
   * A motion read back from the ledger. A motion already here (its run is in
   * this process) keeps its own, exact entry. Returns whether it was added.
   */
  restore(actionId: string, segments: readonly InFlightMotion[]): boolean {
    if (this.#entries.has(actionId)) return false;
    this.#entries.set(actionId, { segments, unresolved: true });
    return true;
  }

  end(actionId: string, outcome: { readonly unresolved: boolean }): void {
    const e = this.#entries.get(actionId);
    if (!e) return;
    if (outcome.unresolved) e.unresolved = true;
    else this.#entries.delete(actionId);
  }

  /** The segments to account for; `stillUnsettled(actionId)` prunes unresolved motions that were settled or confirmed since. */
  current(stillUnsettled: (actionId: string) => boolean): InFlightMotion[] {
    for (const [id, e] of this.#entries) if (e.unresolved && !stillUnsettled(id)) this.#entries.delete(id);
    return [...this.#entries.values()].flatMap((e) =>
      e.segments.map(({ actionId, from, to, peakVelocity }) =>
        peakVelocity === undefined ? { actionId, from, to } : { actionId, from, to, peakVelocity },
      ),
    );
  }

  /** The action ids counted in flight now (without pruning). */
  actionIds(): string[] {
    return [...this.#entries.keys()];
  }
}
