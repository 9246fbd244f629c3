import type { Logger } from "../observability/logger.js";
import { ArmbridgeError } from "../errors.js";
import { fileChange, fileIdentityOf, type FileIdentity } from "./FileIdentity.js";

/** The ledger file was unlinked or replaced under the open database: nothing written now would survive a restart. */
export interface LedgerLoss {
  readonly error: ArmbridgeError;
  /** Epoch ms it was noticed. */
  readonly detectedAt: number;
}

/**
 * Watches that the file an open ledger writes is still the one at its path
 * (dev and inode, and its WAL beside it). Once lost, always lost: writes to
 * an unlinked file succeed and vanish at the next start, so nothing may rely
 * on them. A ":memory:" ledger has no file and is never lost.
 */
export class LedgerFileWatch {
  readonly #path: string;
  readonly #log: Logger;
  /** The database file and its WAL as opened; undefined for ":memory:". */
  readonly #files: { readonly main: FileIdentity; readonly wal: FileIdentity | undefined } | undefined;
  #lost: LedgerLoss | undefined;

  constructor(path: string, log: Logger) {
    this.#path = path;
    this.#log = log;
    const main = path === ":memory:" ? undefined : fileIdentityOf(path);
    this.#files = main && { main, wal: fileIdentityOf(`${path}-wal`) };
  }

  /** Looks again; the loss, once there is one. */
  check(now = Date.now()): LedgerLoss | undefined {
    if (this.#lost || !this.#files) return this.#lost;
    const path = this.#path;
    const main = fileChange(path, this.#files.main);
    const wal = main === undefined && this.#files.wal ? fileChange(`${path}-wal`, this.#files.wal) : undefined;
    const how = main ? `${main}` : wal ? `left without its write-ahead log (${path}-wal ${wal})` : undefined;
    if (how === undefined) return undefined;
    this.#lost = { error: new ArmbridgeError("ARMB_ERR_LEDGER_LOST", { path, how }), detectedAt: now };
    this.#log.error(
      { path, how, code: "ARMB_ERR_LEDGER_LOST" },
      "the intent ledger file was deleted or replaced under the running bridge: no motion is accepted from now on",
    );
    return this.#lost;
  }

  /** The loss noticed so far, without checking again. */
  get lost(): LedgerLoss | undefined {
    return this.#lost;
  }

  /** Throws the loss's error when the file is gone or replaced. */
  assertIntact(): void {
    const loss = this.check();
    if (loss) throw loss.error;
  }
}
