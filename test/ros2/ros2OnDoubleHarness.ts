/**
 * The shared set-up of the ROS tests that run the transport on the rclnodejs
 * double (controller semantics, the transport review, the transport tests,
 * kinematics on ROS): start-and-open, a config patched from the default
 * YAML, the JTC of the default graph, and closing everything after each
 * test. Call `useRos2Double()` once per file: it registers the afterEach.
 */
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { afterEach } from "vitest";
import { parse as parseYaml } from "yaml";
import type { ArmConfig } from "../../src/config/ArmConfig.js";
import { DEFAULT_CONFIG_PATH, loadConfig, parseConfig } from "../../src/config/loadConfig.js";
import type { Ros2OptionsFile } from "../../src/transport/ros2/Ros2Options.js";
import type { ArmStatus, MotionEnd } from "../../src/transport/Transport.js";
import { createRos2TransportOnDouble, type Ros2OnDouble } from "../doubles/createRos2TransportOnDouble.js";
import type { RclnodejsDoubleHandle, RclnodejsDoubleOptions } from "../doubles/rclnodejsDouble.js";

export const JTC = "/joint_trajectory_controller/follow_joint_trajectory";
export const JOINTS = ["shoulder_pan", "shoulder_lift", "elbow", "wrist_1", "wrist_2", "wrist_3"];
export const HOME = [0, -0.5, 1.0, -0.5, 0, 0];

export type DoubleSimulation = Partial<RclnodejsDoubleOptions> & { readonly argv?: readonly string[] };

export interface Ros2DoubleHarness {
  /** A transport on a fresh double, opened (5 s); closed after the test. */
  readonly start: (options?: Ros2OptionsFile, sim?: DoubleSimulation, config?: ArmConfig) => Promise<Ros2OnDouble>;
  /** A transport made by the test itself (not opened), closed after the test. */
  readonly own: (o: Ros2OnDouble) => Ros2OnDouble;
  /** A bare double handle (no transport) to close after the test. */
  readonly track: (handle: RclnodejsDoubleHandle) => RclnodejsDoubleHandle;
  /** Runs before a transport is closed at the end of a test (e.g. closing a service double). */
  readonly onCleanup: (fn: () => void | Promise<void>) => void;
}

export function useRos2Double(): Ros2DoubleHarness {
  let open: Ros2OnDouble[] = [];
  let handles: RclnodejsDoubleHandle[] = [];
  let cleanups: Array<() => void | Promise<void>> = [];
  afterEach(async () => {
    for (const fn of cleanups) await fn();
    for (const o of open) await o.close();
    for (const h of handles) h.close();
    open = [];
    handles = [];
    cleanups = [];
  });
  return {
    start: async (options, sim = {}, config = loadConfig()) => {
      const o = await createRos2TransportOnDouble(config, options, sim);
      open.push(o);
      await o.transport.open(AbortSignal.timeout(5000));
      return o;
    },
    own: (o) => {
      open.push(o);
      return o;
    },
    track: (handle) => {
      handles.push(handle);
      return handle;
    },
    onCleanup: (fn) => {
      cleanups.push(fn);
    },
  };
}

/** The default YAML config, patched as parsed YAML before validation. */
export function configWith(patch: (raw: Record<string, unknown>) => void = () => undefined): ArmConfig {
  const raw = parseYaml(readFileSync(DEFAULT_CONFIG_PATH, "utf8")) as Record<string, unknown>;
  // arm.urdf is relative to the config file, as loadConfig resolves it.
  const arm = raw.arm as Record<string, unknown>;
  if (typeof arm.urdf === "string") arm.urdf = resolve(dirname(DEFAULT_CONFIG_PATH), arm.urdf);
  patch(raw);
  return parseConfig(raw);
}

export function jtc(o: Ros2OnDouble) {
  return o.double.world.controllers.get("joint_trajectory_controller")!;
}

export function ended(end: MotionEnd) {
  if (end.kind !== "ended") throw new Error(`expected ended, got ${JSON.stringify(end)}`);
  return end.record;
}

/** Resolves with the first status that satisfies `predicate`; rejects after `ms`. */
export async function until(o: Ros2OnDouble, predicate: (s: ArmStatus) => boolean, ms = 5000): Promise<ArmStatus> {
  const signal = AbortSignal.timeout(ms);
  const now = o.transport.latestStatus();
  if (now && predicate(now)) return now;
  return new Promise((resolve, reject) => {
    const off = o.transport.onStatus((s) => {
      if (predicate(s)) {
        off();
        resolve(s);
      }
    });
    signal.addEventListener("abort", () => {
      off();
      reject(new Error("condition not met"));
    });
  });
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
