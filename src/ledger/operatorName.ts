/**
 * Characters that show nothing on their own: Unicode format characters
 * (category Cf: U+200B zero width space, U+2060 word joiner, U+200D zero
 * width joiner, U+FEFF, U+00AD soft hyphen, the bidi controls …), controls
 * (Cc) and whitespace. Checked by Unicode property, not by a list, so a
 * code point added to the category later is covered too.
 */
const INVISIBLE = /[\p{Cf}\p{Cc}\p{White_Space}]/gu;
/** What counts as something a person can see and read back: a letter, digit, punctuation mark or symbol. */
const VISIBLE = /[\p{L}\p{N}\p{P}\p{S}]/u;

/** Why a name was refused, for error messages and usage text. */
export const OPERATOR_NAME_RULE =
  "a name with at least one visible character (format characters such as U+200B and whitespace do not count)";

/**
 * The operator name to record, or undefined when there is none: a name
 * recorded against an approval, a confirmation or a servo recovery must say
 * who it was, so one made only of invisible characters ("\u200b") is no
 * name. Stored in Unicode NFC, so the same name typed on two keyboards
 * (a precomposed "é" or "e" + U+0301) is one name in the ledger; leading and
 * trailing invisible characters are dropped, inner ones (the joiner in an
 * emoji sequence) kept.
 */
export function normaliseOperatorName(raw: string): string | undefined {
  const nfc = raw.normalize("NFC");
  if (!VISIBLE.test(nfc.replace(INVISIBLE, ""))) return undefined;
  return nfc.replace(/^[\p{Cf}\p{Cc}\p{White_Space}]+|[\p{Cf}\p{Cc}\p{White_Space}]+$/gu, "");
}
