import { poseOf } from "../transport/poseOf.js";
import type { Transport } from "../transport/Transport.js";
import type { StampedPose } from "./sources/SimCameraSource.js";

/** A status younger than this is drawn as it is. */
const FRESH_MS = 50;
/** The longest a picture waits for the next status before drawing the newest it has. */
const WAIT_MS = 250;

function stamped(transport: Pick<Transport, "latestStatus">): StampedPose | undefined {
  const s = transport.latestStatus();
  const pose = poseOf(s);
  return s && pose ? { pose, stampMs: s.stampMs } : undefined;
}

/**
 * The arm's pose for the simulated camera: the newest status if it is fresh,
 * else the next one to arrive (the bridge may have been busy — encoding the
 * previous picture, say — while statuses queued), else, after a short wait,
 * the newest there is, whose age the picture then carries.
 */
export function freshPoseOf(
  transport: Pick<Transport, "latestStatus" | "onStatus">,
  now: () => number = Date.now,
): { latest: () => StampedPose | undefined; fresh: (signal: AbortSignal) => Promise<StampedPose | undefined> } {
  const latest = (): StampedPose | undefined => stamped(transport);
  return {
    latest,
    fresh: (signal) => {
      const current = latest();
      if (current && now() - current.stampMs <= FRESH_MS) return Promise.resolve(current);
      return new Promise((resolve) => {
        const finish = (): void => {
          clearTimeout(timer);
          unsubscribe();
          signal.removeEventListener("abort", finish);
          resolve(latest());
        };
        const timer = setTimeout(finish, WAIT_MS);
        const unsubscribe = transport.onStatus(() => finish());
        signal.addEventListener("abort", finish, { once: true });
      });
    },
  };
}
