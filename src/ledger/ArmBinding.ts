import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";

/**
 * Which arm a ledger's rows were recorded against: the config's arm name and
 * what the arm says it is (Transport.identity: the firmware's HELLO, the
 * ROS controllers). Rows of one arm are never reconciled against another.
 */
export interface ArmBinding {
  readonly name: string;
  /** Undefined when the transport cannot say (then only the name is compared). */
  readonly identity: string | undefined;
  /** Epoch ms the ledger was bound to this arm. */
  readonly boundAt: number;
}

export function describeArm(b: Pick<ArmBinding, "name" | "identity">): string {
  return b.identity === undefined ? JSON.stringify(b.name) : `${JSON.stringify(b.name)} [${b.identity}]`;
}

/** Whether rows recorded against `recorded` may be judged against `current`. */
export function sameArm(
  recorded: Pick<ArmBinding, "name" | "identity">,
  current: Pick<ArmBinding, "name" | "identity">,
): boolean {
  if (recorded.name !== current.name) return false;
  return recorded.identity === undefined || current.identity === undefined || recorded.identity === current.identity;
}

/**
 * `data/ledger.sqlite` → `data/ledger.arm.json`: a copy of the binding
 * outside the database, left behind if the database is deleted — so a bridge
 * finding it without the database knows it is about to start an empty ledger
 * where this arm's records were, and says so.
 */
export function armRecordFileOf(ledgerPath: string): string {
  return `${ledgerPath.replace(/\.sqlite$/, "")}.arm.json`;
}

export function writeArmRecordFile(ledgerPath: string, binding: ArmBinding): void {
  const file = armRecordFileOf(ledgerPath);
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(
    tmp,
    JSON.stringify({
      name: binding.name,
      identity: binding.identity ?? null,
      bound_at: new Date(binding.boundAt).toISOString(),
      ledger: ledgerPath,
    }) + "\n",
  );
  renameSync(tmp, file);
}

export function readArmRecordFile(ledgerPath: string): { name: string; boundAt: string } | undefined {
  const file = armRecordFileOf(ledgerPath);
  if (!existsSync(file)) return undefined;
  try {
    const j = JSON.parse(readFileSync(file, "utf8")) as { name?: unknown; bound_at?: unknown };
    return {
      name: typeof j.name === "string" ? j.name : "?",
      boundAt: typeof j.bound_at === "string" ? j.bound_at : "?",
    };
  } catch {
    return { name: "?", boundAt: "?" };
  }
}
