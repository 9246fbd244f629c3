import type { CallClient } from "../../ledger/CallClient.js";
import type { Logger } from "../../observability/logger.js";
import type { MotionPace } from "../../transport/Transport.js";
import type { ArmClock } from "./ArmClock.js";
import type { ExecutorEvent } from "../ExecutorEvent.js";

/** A pace change worth telling people about: a pause began or ended, or the pace moved by a tenth. */
function worthTelling(before: MotionPace | undefined, now: MotionPace | undefined): boolean {
  if (!now) return false;
  if (!before) return now.paused || now.factor < 0.95;
  if (before.paused !== now.paused) return true;
  return Math.abs(before.factor - now.factor) >= 0.1;
}

/**
 * Tells watchers (the console, Live progress, logs) how fast the arm is
 * running a call's motion, while the call waits on it: "paused by the teach
 * pendant" when its speed scaling drops to 0, and the pace when a slider
 * slows it. Returns the function that stops watching.
 */
export function reportPace(
  clock: ArmClock,
  call: {
    readonly callId: string;
    readonly tool: string;
    readonly actionId: string;
    readonly client?: CallClient | undefined;
  },
  emit: (event: ExecutorEvent) => void,
  log: Logger,
): () => void {
  let told: MotionPace | undefined;
  const tell = (): void => {
    const pace = clock.pace();
    if (!worthTelling(told, pace) || !pace) return;
    told = pace;
    if (pace.paused)
      log.warn(
        { pace },
        "the arm is paused (speed scaling 0: the teach pendant's slider, or its program paused); waiting, the wait budget stands still",
      );
    else log.info({ pace }, "the arm runs at a reduced pace; the wait budget is stretched by it");
    emit({ type: "paced", callId: call.callId, tool: call.tool, actionId: call.actionId, pace, client: call.client });
  };
  tell();
  return clock.onChange(tell);
}

/** A pace in words, for progress lines and results. */
export function paceWords(pace: MotionPace): string {
  if (pace.paused) return `paused by the teach pendant (speed scaling 0; ${pace.source})`;
  const scaling = pace.speedScaling === undefined ? "" : `speed scaling ${Math.round(pace.speedScaling * 100)} %, `;
  return `running at ${Math.round(pace.factor * 100)} % of its planned pace (${scaling}${pace.source})`;
}
