import { MAX_CALL_ID_LENGTH } from "../../wire/limits.js";

// ES2024's String.prototype.isWellFormed (Node >= 20); the project's lib is ES2023.
const isWellFormed = (String.prototype as unknown as { isWellFormed: (this: string) => boolean }).isWellFormed;

/**
 * Why a call id cannot be used, or undefined when it can. A lone surrogate
 * cannot be encoded as UTF-8: SQLite would store ill-formed text that other
 * readers of the ledger fail on, so such an id is refused, not repaired.
 */
export function callIdProblem(id: string): string | undefined {
  if (id.length > MAX_CALL_ID_LENGTH) return `a call id is at most ${MAX_CALL_ID_LENGTH} characters (got ${id.length})`;
  if (!isWellFormed.call(id)) return "a call id must be well-formed Unicode (it contains a lone surrogate)";
  return undefined;
}
