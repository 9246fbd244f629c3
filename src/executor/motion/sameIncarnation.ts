/**
 * Whether the arm still has the memory it had when a command was sent, so
 * that its "never heard of it" is evidence and it may be asked to void the id.
 */
export function sameIncarnation(recorded: string | undefined, current: string | undefined): boolean {
  // An arm that names no incarnation keeps no action memory we could lose track of.
  if (recorded === undefined && current === undefined) return true;
  return recorded !== undefined && recorded === current;
}
