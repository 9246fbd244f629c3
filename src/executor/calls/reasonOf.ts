/** The words a signal was aborted with; a bare abort says only that the wait ended. */
export function reasonOf(signal: AbortSignal): string {
  const r: unknown = signal.reason;
  if (typeof r === "string") return r;
  if (r instanceof Error && r.name !== "AbortError") return r.message;
  return "the call's wait ended";
}
