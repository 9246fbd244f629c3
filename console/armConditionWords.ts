import type { LinkView } from "./wire.js";

/** Link error codes of an arm that answers but cannot move (ARMB_ERR_ARM_*), in the link pill's words. */
const ARM_NOT_READY_WORDS: Readonly<Record<string, string>> = {
  ARMB_ERR_ARM_NOT_READY: "ARM NOT READY",
  ARMB_ERR_ARM_SAFETY_STOP: "SAFETY STOP",
};

/**
 * The link pill's text for a connected arm that cannot move (a UR whose
 * program is not playing, or in a protective stop or E-stop), or undefined.
 * The bridge's detail carries UR's own advice, which the operator needs on
 * any screen, so it is in the text, not in the part a phone leaves off.
 */
export function armConditionText(link: LinkView): string | undefined {
  if (link.state !== "connected") return undefined;
  const words = ARM_NOT_READY_WORDS[link.error_code ?? ""];
  if (!words) return undefined;
  return `ARM LINK: CONNECTED, ${words}${link.detail ? ` — ${link.detail}` : ""}`;
}
