import { accessSync, constants, existsSync, readFileSync, realpathSync, statSync } from "node:fs";
import { userInfo } from "node:os";
import { basename, join } from "node:path";
import { fail, ok, warn, type DoctorCheck } from "./DoctorCheck.js";

/** The serial device: there, a character device, and readable and writable by this user (on Linux: the `dialout` group). */
export function checkDevice(link: string): DoctorCheck {
  if (!link.startsWith("/")) return ok("device", `${link} is a network link: no local device to check`);
  let st;
  try {
    st = statSync(link);
  } catch {
    return fail(
      "device",
      `${link} does not exist`,
      "plug the adapter in and check its power; `ls /dev/serial/by-id/` lists the adapters present (a by-id path stays the same across reboots and replugging)",
    );
  }
  if (!st.isCharacterDevice())
    return fail(
      "device",
      `${link} is not a serial device (not a character device)`,
      "give --serial the adapter's device path, e.g. /dev/ttyUSB0 or /dev/ttyACM0",
    );
  const group = groupName(st.gid);
  try {
    accessSync(link, constants.R_OK | constants.W_OK);
    return ok("device", `${link} is there and this user can read and write it${group ? ` (group ${group})` : ""}`);
  } catch {
    const user = userInfo().username;
    const member = group !== undefined && groupMembers(group).includes(user);
    const fix =
      group === undefined
        ? `give yourself access to ${link} (its group id is ${st.gid})`
        : member
          ? `you are in group ${group} but this login started before you were added: log out and back in (or \`newgrp ${group}\`)`
          : `sudo usermod -aG ${group} ${user}, then log out and back in`;
    return fail(
      "device",
      `${link} is not writable by ${user} (owner uid ${st.uid}, group ${group ?? st.gid}, mode ${(st.mode & 0o777).toString(8)})`,
      fix,
    );
  }
}

/**
 * The USB-serial adapter's latency timer (FTDI's, as the U2D2 has): bytes
 * received are held up to this many ms before they reach the host, so every
 * bus exchange can wait that long. The default is 16 ms; ROBOTIS advises the
 * lowest the hardware supports (e-Manual, "USB Latency Setting").
 */
export function checkLatencyTimer(link: string, sysfsRoot = "/sys"): DoctorCheck {
  if (!link.startsWith("/"))
    return ok("latency timer", "a network link: the adapter's latency is the server's (set it there)");
  let real: string;
  try {
    real = realpathSync(link);
  } catch {
    return ok("latency timer", `${link} is not there to check (see device)`);
  }
  if (real.startsWith("/dev/pts/"))
    return ok("latency timer", `${link} is a pseudo-terminal: no USB adapter, no latency timer`);
  return latencyTimerOf(basename(real), sysfsRoot);
}

export function latencyTimerOf(tty: string, sysfsRoot: string): DoctorCheck {
  const file = join(sysfsRoot, "bus", "usb-serial", "devices", tty, "latency_timer");
  if (!existsSync(file))
    return ok(
      "latency timer",
      `${tty} has no latency timer (not an FTDI-style USB-serial adapter; a CDC-ACM board sends at once)`,
    );
  const ms = Number(readFileSync(file, "utf8").trim());
  if (!Number.isFinite(ms))
    return warn(
      "latency timer",
      `${file} reads ${JSON.stringify(readFileSync(file, "utf8").trim())}`,
      `echo 1 | sudo tee ${file}`,
    );
  if (ms <= 1) return ok("latency timer", `${tty}: ${ms} ms`);
  return warn(
    "latency timer",
    `${tty}: ${ms} ms — the adapter holds what the servos send up to ${ms} ms, so every bus exchange can take that long`,
    `echo 1 | sudo tee ${file}; to keep it, a udev rule: ACTION=="add", SUBSYSTEM=="usb-serial", DRIVER=="ftdi_sio", ATTR{latency_timer}="1"`,
  );
}

function groupEntries(): string[][] {
  try {
    return readFileSync("/etc/group", "utf8")
      .split("\n")
      .map((l) => l.split(":"));
  } catch {
    return [];
  }
}

function groupName(gid: number): string | undefined {
  return groupEntries().find((e) => Number(e[2]) === gid)?.[0];
}

function groupMembers(name: string): string[] {
  return (groupEntries().find((e) => e[0] === name)?.[3] ?? "").split(",").filter((m) => m !== "");
}
