/**
 * A google.protobuf.Duration in its JSON form — seconds with up to nine
 * fractional digits and an "s" suffix ("1s", "0.250s", "37.5s") — in
 * milliseconds, or undefined when the text is not one. The Live API's
 * `goAway.timeLeft` and `google.rpc.RetryInfo.retryDelay` both use it
 * (@google/genai `LiveServerGoAway.timeLeft: string`; the JSON mapping of
 * Duration in the protobuf language guide).
 */
export function parseDurationMs(text: unknown): number | undefined {
  if (typeof text !== "string") return undefined;
  const m = /^\s*(\d{1,12})(?:\.(\d{1,9}))?s\s*$/.exec(text);
  if (!m) return undefined;
  const seconds = Number(m[1]);
  const fraction = m[2] === undefined ? 0 : Number(`0.${m[2]}`);
  return Math.round((seconds + fraction) * 1000);
}
