import type { CliIo } from "../../commandLine/CliIo.js";

/**
 * How every command that prints records chooses its form: JSON when asked
 * (`--json`) or when stdout is not a terminal (a pipe, a file, a script —
 * exactly the shapes the commands printed before they learned tables), and
 * tables and sentences for a person at a terminal.
 */
export function wantsJson(io: CliIo, flag: boolean | undefined): boolean {
  return flag === true || (io.stdout as { isTTY?: boolean }).isTTY !== true;
}

/** The `--json` flag every record-printing command takes. */
export const JSON_FLAG = { json: { type: "boolean" } } as const;
export const JSON_FLAG_HELP = "  --json             print JSON (the default whenever stdout is not a terminal)";

/** Left-aligned columns, two spaces apart, header first; a cell's line breaks become spaces. */
export function formatTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const clean = (s: string): string => s.replace(/\s+/g, " ");
  const body = rows.map((r) => header.map((_, i) => clean(r[i] ?? "")));
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => (r[i] ?? "").length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join("  ")
      .trimEnd() + "\n";
  return line(header) + body.map(line).join("");
}

/** Writes `data` as one JSON line, or `human()` for a person. */
export function printRecord(io: CliIo, json: boolean, data: unknown, human: () => string): void {
  io.stdout.write(json ? JSON.stringify(data) + "\n" : ensureNewline(human()));
}

function ensureNewline(text: string): string {
  return text.endsWith("\n") ? text : `${text}\n`;
}

/** `HH:MM:SS` local time of an epoch-ms stamp, for tables; "-" for none. */
export function clockOf(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return "-";
  const d = new Date(ms);
  const p = (n: number): string => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/** `elbow=0.500, wrist_2=-1.000` */
export function poseText(pose: Readonly<Record<string, number>> | null | undefined): string {
  if (!pose) return "-";
  const entries = Object.entries(pose);
  return entries.length === 0 ? "-" : entries.map(([k, v]) => `${k}=${v.toFixed(3)}`).join(", ");
}
