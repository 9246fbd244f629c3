import type { CliIo } from "../../../commandLine/CliIo.js";

/** JSON when asked, or when stdout is not a terminal (a pipe, a file, a script); a table for a person otherwise. */
export function wantsJson(io: CliIo, flag: boolean | undefined): boolean {
  return flag === true || (io.stdout as { isTTY?: boolean }).isTTY !== true;
}

/** Left-aligned columns, two spaces apart, header first. */
export function formatTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join("  ")
      .trimEnd() + "\n";
  return line(header) + rows.map(line).join("");
}
