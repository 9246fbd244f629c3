/** One line of `armbridge doctor`: what was checked, how it stands, and what to do about it. */
export interface DoctorCheck {
  readonly check: string;
  readonly status: "OK" | "WARN" | "FAIL";
  readonly detail: string;
  /** What to do, for WARN and FAIL. */
  readonly fix?: string;
}

export const ok = (check: string, detail: string): DoctorCheck => ({ check, status: "OK", detail });
export const warn = (check: string, detail: string, fix: string): DoctorCheck => ({
  check,
  status: "WARN",
  detail,
  fix,
});
export const fail = (check: string, detail: string, fix: string): DoctorCheck => ({
  check,
  status: "FAIL",
  detail,
  fix,
});

export function formatCheck(c: DoctorCheck): string {
  return `${c.status.padEnd(4)}  ${c.check.padEnd(14)} ${c.detail}${c.fix ? ` — fix: ${c.fix}` : ""}\n`;
}
