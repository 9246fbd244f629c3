import type { ActionRecord, ArmStatus, MotionEnd } from "../Transport.js";

/** One runMotion waiting for its action to end. */
export interface MotionWatch {
  readonly actionId: string;
  /** A record for this action, from STATUS or an ACTION reply. */
  readonly onRecord: (record: ActionRecord) => void;
  /** The link or the device failed under this motion. */
  readonly interrupt: (end: MotionEnd) => void;
}

/** The motions waiting on the device: fed by each STATUS, ended together when the link or the boot is lost. */
export class MotionWatches {
  private readonly watches = new Set<MotionWatch>();

  add(watch: MotionWatch): void {
    this.watches.add(watch);
  }

  delete(watch: MotionWatch): void {
    this.watches.delete(watch);
  }

  actionIds(): string[] {
    return [...this.watches].map((w) => w.actionId);
  }

  /** Hands each waiting motion its record from this status, if the status carries one. */
  dispatch(status: ArmStatus): void {
    if (this.watches.size === 0) return;
    const byId = new Map(status.actions.map((r) => [r.actionId, r]));
    for (const watch of [...this.watches]) {
      const record = byId.get(watch.actionId);
      if (record) watch.onRecord(record);
    }
  }

  interruptAll(end: MotionEnd): void {
    for (const watch of [...this.watches]) watch.interrupt(end);
  }
}
