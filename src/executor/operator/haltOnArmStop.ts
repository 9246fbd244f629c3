import type { Logger } from "../../observability/logger.js";
import type { LinkState, Transport } from "../../transport/Transport.js";
import type { HaltOutcome, HaltRequest } from "../arm/HaltLatch.js";

/** The link's error_code a transport sets while the arm's own safety system holds it stopped. */
const SAFETY_STOP = "ARMB_ERR_ARM_SAFETY_STOP";

/**
 * The arm's own safety system stopped it (a UR's protective stop or E-stop,
 * which only pause its program; an FR3's reflex, which takes its controllers
 * down): the bridge latches a HALT with the cause, as
 * by an operator's, so nothing moves again until a person has looked at the
 * arm and released it by name — whatever the arm does once unlocked.
 */
export function haltOnArmStop(d: {
  readonly transport: Transport;
  readonly log: Logger;
  readonly shutdown: AbortSignal;
  readonly halt: (request: HaltRequest) => Promise<HaltOutcome>;
}): () => void {
  let stopped = false;
  const onLink = (link: LinkState): void => {
    const now = link.error_code === SAFETY_STOP;
    if (now && !stopped && !d.shutdown.aborted) {
      d.log.error({ detail: link.detail }, "the arm's safety system stopped it: latching a halt");
      // halt() never rejects; its outcome reaches the console as `halted` events.
      void d.halt({ source: "arm", note: link.detail });
    }
    stopped = now;
  };
  // A bridge that starts while the arm is stopped latches too.
  onLink(d.transport.linkState());
  return d.transport.onLinkState(onLink);
}
