/** A fixed-width text table: the first row is the header, columns padded to their widest cell; numbers right-aligned. */
export function formatTable(rows: readonly (readonly string[])[]): string {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  const numeric = /^[-+]?[\d.]+( ?(ms|%))?$|^\d+\/\d+/;
  return rows
    .map((row, r) =>
      row
        .map((cell, i) => (r > 0 && numeric.test(cell) ? cell.padStart(widths[i] ?? 0) : cell.padEnd(widths[i] ?? 0)))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

export const ms = (n: number): string => (Number.isFinite(n) ? `${n.toFixed(1)} ms` : "—");
export const pct = (part: number, whole: number): string =>
  whole === 0 ? "—" : `${((100 * part) / whole).toFixed(1)}%`;
