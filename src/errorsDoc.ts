import { ERRORS, type ErrorCode } from "./errors.js";

const BEGIN =
  "<!-- The table below is written from src/errors.ts by `npm run docs:errors`: edit the registry, not the table. -->";
const END = "<!-- end of the generated table -->";

/** docs/errors.md's table of codes, one row per registry entry, in the registry's order. */
export function renderErrorTable(): string {
  const rows = (Object.keys(ERRORS) as ErrorCode[]).map((code) => {
    const entry: { httpStatus: number; message: string; docs?: string } = ERRORS[code];
    const text = entry.docs === undefined ? entry.message : `${entry.message}. ${entry.docs}`;
    return `| \`${code}\` | ${entry.httpStatus} | ${text.replaceAll("|", "\\|")} |`;
  });
  return [BEGIN, "", "| code | HTTP status | message template |", "|---|---|---|", ...rows, "", END].join("\n");
}

/** The page with its generated table replaced by the registry's, the prose around it kept as written. */
export function withErrorTable(page: string): string {
  const begin = page.indexOf(BEGIN);
  const end = page.indexOf(END);
  if (begin < 0 || end < begin)
    throw new Error(`docs/errors.md has lost the markers around its generated table (${BEGIN})`);
  return page.slice(0, begin) + renderErrorTable() + page.slice(end + END.length);
}
