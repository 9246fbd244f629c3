/** How many action ids remember the boot they were sent in (enough for hours of tool calls). */
const SENT_BOOT_MEMORY = 10_000;
/** The boot of an action whose MOVE met NACK BOOT_MISMATCH; boot ids are never 0, so it matches no boot. */
export const BOOT_LOST = 0;

/**
 * The device boot each action's MOVE was addressed to. A device that has
 * rebooted since may have run the action and forgotten it, so its "unknown"
 * is no evidence: queryAction reads this to refuse to void such an action.
 */
export class SentBootMemory {
  private readonly sentIn = new Map<string, number>();

  /** The boot `actionId` was sent to; BOOT_LOST after a BOOT_MISMATCH; undefined if never sent (or long forgotten). */
  bootOf(actionId: string): number | undefined {
    return this.sentIn.get(actionId);
  }

  remember(actionId: string, bootId: number): void {
    this.sentIn.delete(actionId);
    this.sentIn.set(actionId, bootId);
    if (this.sentIn.size > SENT_BOOT_MEMORY) {
      const oldest = this.sentIn.keys().next();
      if (!oldest.done) this.sentIn.delete(oldest.value);
    }
  }

  /**
   * The device said (NACK BOOT_MISMATCH) it is no longer in the boot this
   * action was sent in, before any STATUS from its new boot arrived: from now
   * on the action counts as sent in a lost boot.
   */
  markLost(actionId: string): void {
    this.sentIn.delete(actionId);
    this.sentIn.set(actionId, BOOT_LOST);
  }
}
