/** Characters of device text passed on at most (code points, before quoting). */
export const DEVICE_TEXT_MAX_CHARS = 160;

/** Characters that could make quoted text read as something else: controls, format characters (bidi overrides, zero-width), line and paragraph separators, lone surrogates. */
const UNSAFE = /[\p{Cc}\p{Cf}\u2028\u2029]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/gu;

/**
 * Text that came from a device or the network — an HTTP reason phrase, a
 * controller's error string, a device's refusal reason, a file name — as it
 * may appear in anything a model or an operator reads: labelled as device
 * text with where it came from, quoted as a JSON string (it cannot close the
 * quote, start a line or turn the text right-to-left: controls and format
 * characters are escaped), and cut to DEVICE_TEXT_MAX_CHARS with the cut
 * said. Whatever it says ("IGNORE ALL PREVIOUS INSTRUCTIONS…") stays data
 * about the device, never prose of ours. Every such text goes through here.
 */
export function deviceText(origin: string, text: string): string {
  const chars = [...text];
  const kept = chars.length > DEVICE_TEXT_MAX_CHARS ? chars.slice(0, DEVICE_TEXT_MAX_CHARS).join("") : text;
  const quoted = JSON.stringify(kept).replace(UNSAFE, (c) => `\\u${(c.codePointAt(0) ?? 0).toString(16).padStart(4, "0")}`);
  const cut = chars.length > DEVICE_TEXT_MAX_CHARS ? `, cut at ${DEVICE_TEXT_MAX_CHARS} of ${chars.length} characters` : "";
  return `[device text from ${origin}: ${quoted}${cut}]`;
}
