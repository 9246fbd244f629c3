import { accessSync, constants, existsSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { Cameras } from "../../../cameras/Cameras.js";
import type { ArmConfig } from "../../../config/ArmConfig.js";
import { isArmbridgeError } from "../../../errors.js";
import { armKinematicsOf } from "../../../kinematics/armKinematics.js";
import { readArmRecordFile } from "../../../ledger/ArmBinding.js";
import { readOwnerFile } from "../../../ledger/LedgerOwner.js";
import { fail, ok, warn, type DoctorCheck } from "./DoctorCheck.js";

/** The safety envelope: the URDF loads into a chain, and a workspace box and floor are set. */
export function checkEnvelope(config: ArmConfig): DoctorCheck {
  let kin;
  try {
    kin = armKinematicsOf(config);
  } catch (error) {
    return fail(
      "envelope",
      isArmbridgeError(error) ? error.message : String(error),
      "fix arm.urdf / base_link / tip_link (docs/kinematics.md)",
    );
  }
  const w = config.workspace;
  if (!kin || !w)
    return warn(
      "envelope",
      "no workspace envelope: motions are not checked against a box, the table or keep-out zones",
      "give the config arm.urdf, base_link, tip_link and a workspace: {keep_in, floor_z, max_step_m} (docs/kinematics.md)",
    );
  const parts = [
    w.keepIn ? `keep_in [${w.keepIn.min.join(", ")}]..[${w.keepIn.max.join(", ")}]` : undefined,
    w.floorZ === undefined ? undefined : `floor_z ${w.floorZ}`,
    w.maxStepM === undefined ? undefined : `max_step_m ${w.maxStepM}`,
  ].filter((p) => p !== undefined);
  if (!w.keepIn && w.floorZ === undefined)
    return warn(
      "envelope",
      `${kin.chain.baseLink} → ${kin.chain.tipLink} loads, but the workspace sets neither keep_in nor floor_z`,
      "set workspace.keep_in and workspace.floor_z (docs/kinematics.md)",
    );
  return ok(
    "envelope",
    `${kin.chain.baseLink} → ${kin.chain.tipLink} (${kin.jointNames.length} joints, ${kin.source}): ${parts.join(", ")}`,
  );
}

/** Each camera: a whole frame comes, and it is fresh by the camera's own stale_after_ms. */
export async function checkCameras(config: ArmConfig, options: { readonly ros: boolean }): Promise<DoctorCheck[]> {
  if (config.cameras.length === 0) return [];
  const cameras = new Cameras({ config, pose: () => undefined });
  const out: DoctorCheck[] = [];
  try {
    for (const c of config.cameras) {
      const check = `camera ${c.name}`;
      if (c.source.kind === "ros" && !options.ros) {
        out.push(
          warn(check, `ROS topic ${c.source.topic}: checked only with --ros`, `armbridge doctor --config … --ros`),
        );
        continue;
      }
      const fix = fixFor(c.source);
      try {
        const frame = await cameras.capture(
          c.name,
          AbortSignal.timeout(Math.max(3000, c.source.kind === "http" ? c.source.timeoutMs + 500 : 0)),
        );
        const what = `${frame.width}×${frame.height} ${frame.format} from ${frame.source}, ${Math.round(frame.ageMs)} ms old`;
        out.push(
          frame.stale
            ? fail(check, `${what}: older than its stale_after_ms (${c.staleAfterMs} ms)`, fix)
            : ok(check, what),
        );
      } catch (error) {
        out.push(fail(check, isArmbridgeError(error) ? error.message : String(error), fix));
      }
    }
  } finally {
    cameras.close();
  }
  return out;
}

function fixFor(source: ArmConfig["cameras"][number]["source"]): string {
  switch (source.kind) {
    case "file":
      return `is the program that writes ${source.path} still running? (its frames stopped)`;
    case "http":
      return `is the camera server at ${source.url} up and its camera streaming? (curl it)`;
    case "v4l2":
      return `is ${source.device} plugged in, and not held by another program? (\`v4l2-ctl --list-devices\`, \`fuser ${source.device}\`); it must offer ${source.width}×${source.height} at ${source.fps} fps`;
    case "ros":
      return `is ${source.topic} published? (ros2 topic hz ${source.topic})`;
    case "sim":
      return "the simulated camera draws from the arm's pose: check the bridge's link";
  }
}

/** Where the intent ledger lives, whether this user can write there, and whether a bridge holds it now. */
export function checkLedger(
  dataDir: string,
  armName: string,
): { check: DoctorCheck; runningBridge: string | undefined } {
  const ledger = join(dataDir, "ledger.sqlite");
  if (!existsSync(dataDir)) {
    let parent = dirname(dataDir);
    while (!existsSync(parent) && dirname(parent) !== parent) parent = dirname(parent);
    try {
      accessSync(parent, constants.W_OK);
      return { check: ok("ledger", `${dataDir}: not there yet; the first serve creates it`), runningBridge: undefined };
    } catch {
      return {
        check: fail(
          "ledger",
          `${dataDir} does not exist and ${parent} is not writable by this user`,
          "pass serve --data DIR with a folder you own",
        ),
        runningBridge: undefined,
      };
    }
  }
  try {
    accessSync(dataDir, constants.W_OK);
    if (existsSync(ledger)) accessSync(ledger, constants.R_OK | constants.W_OK);
  } catch {
    const who = existsSync(ledger) ? statSync(ledger).uid : statSync(dataDir).uid;
    return {
      check: fail(
        "ledger",
        `${existsSync(ledger) ? ledger : dataDir} is not writable by this user (owned by uid ${who}; a serve once run with sudo?)`,
        `sudo chown -R $(id -un) ${dataDir}`,
      ),
      runningBridge: undefined,
    };
  }
  const owner = readOwnerFile(ledger);
  const alive = owner !== undefined && pidAlive(owner.pid);
  const record = readArmRecordFile(ledger);
  const theirs = record && record.name !== armName ? ` — it belongs to arm ${record.name}, not ${armName}` : "";
  if (alive && owner) {
    return {
      check: warn(
        "ledger",
        `${ledger} is held by a running bridge (pid ${owner.pid} on ${owner.host}, since ${owner.since})${theirs}`,
        "stop that serve for the bus checks (two programs on one bus talk over each other), or check through it: GET /v1/state",
      ),
      runningBridge: `pid ${owner.pid}`,
    };
  }
  const rows = existsSync(ledger) ? `${ledger}` : `${dataDir} (no ledger yet)`;
  return {
    check: theirs
      ? warn("ledger", `${rows}${theirs}`, "give this arm its own folder with serve --data DIR")
      : ok("ledger", `${rows}, writable by this user, no bridge holds it`),
    runningBridge: undefined,
  };
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
