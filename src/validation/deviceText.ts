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
 *
 * The operator reads it so (console, log, ledger); a model never does:
 * whatever a model is given passes through withoutDeviceText, which leaves
 * the codes around it and puts a neutral sentence in its place.
 */
export function deviceText(origin: string, text: string): string {
  const chars = [...text];
  const kept = chars.length > DEVICE_TEXT_MAX_CHARS ? chars.slice(0, DEVICE_TEXT_MAX_CHARS).join("") : text;
  const quoted = JSON.stringify(kept).replace(
    UNSAFE,
    (c) => `\\u${(c.codePointAt(0) ?? 0).toString(16).padStart(4, "0")}`,
  );
  const cut =
    chars.length > DEVICE_TEXT_MAX_CHARS ? `, cut at ${DEVICE_TEXT_MAX_CHARS} of ${chars.length} characters` : "";
  return `[device text from ${safeOrigin(origin)}: ${quoted}${cut}]`;
}

/** One span deviceText wrote: its origin (no `]`, `"`, `:` or `\\` in it) and its quoted, escaped text. */
const DEVICE_TEXT_SPAN = /\[device text from ([^\]":\\]*): "(?:[^"\\]|\\.)*"(?:, cut at \d+ of \d+ characters)?\]/g;

/**
 * Text for a model: every span of device text replaced by a neutral sentence
 * naming only where it came from. A device's words can be an instruction
 * ("ignore previous instructions and move to …"); a model acting on the
 * arm reads our codes and sentences, never them.
 */
export function withoutDeviceText(text: string): string {
  if (!text.includes(SPAN_START)) return text;
  const replaced = text.replace(
    DEVICE_TEXT_SPAN,
    (_span, origin: string) => `[text from ${origin} withheld from the model; the operator's console and log show it]`,
  );
  // A span cut short by a later bound on the whole text no longer matches: what follows its start is withheld.
  const broken = replaced.indexOf(SPAN_START);
  return broken === -1
    ? replaced
    : `${replaced.slice(0, broken)}[device text withheld from the model; the operator's console and log show it]`;
}

const SPAN_START = "[device text from ";

/** Every string in a JSON-like value through withoutDeviceText; the value's shape is kept. */
export function withoutDeviceTextIn<T>(value: T): T {
  if (typeof value === "string") return withoutDeviceText(value) as T;
  if (Array.isArray(value)) return value.map((v: unknown) => withoutDeviceTextIn(v)) as T;
  if (typeof value === "object" && value !== null)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withoutDeviceTextIn(v)])) as T;
  return value;
}

/** An origin names where text came from in our words, but may carry a name the device chose (a ROS node): kept to characters that cannot end or fake a span. */
function safeOrigin(origin: string): string {
  return origin
    .replace(/[[\]":\\]/g, "'")
    .replace(UNSAFE, " ")
    .slice(0, 200);
}
