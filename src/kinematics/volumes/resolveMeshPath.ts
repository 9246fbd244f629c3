import { existsSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * Where a URDF `<mesh filename>` is on this machine: `file://` and absolute
 * paths as they are; a relative path against the URDF's folder;
 * `package://PKG/rest` in ROS's own places — `PKG` under each
 * ROS_PACKAGE_PATH entry, `share/PKG` under each AMENT_PREFIX_PATH entry —
 * and then beside the URDF (a folder named PKG among its ancestors, or one of
 * their subfolders), for a description package copied without ROS. Returns
 * the candidates tried when none exists, for the error message.
 */
export function resolveMeshPath(
  filename: string,
  urdfPath: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): { readonly path: string } | { readonly tried: readonly string[] } {
  const candidates: string[] = [];
  const urdfDir = urdfPath === undefined ? undefined : dirname(resolve(urdfPath));
  if (filename.startsWith("file://")) {
    candidates.push(fileURLToPath(filename));
  } else if (filename.startsWith("package://")) {
    const rest = filename.slice("package://".length);
    const slash = rest.indexOf("/");
    const pkg = slash < 0 ? rest : rest.slice(0, slash);
    const inside = slash < 0 ? "" : rest.slice(slash + 1);
    for (const root of (env.ROS_PACKAGE_PATH ?? "").split(":").filter(Boolean))
      candidates.push(join(root, pkg, inside));
    for (const prefix of (env.AMENT_PREFIX_PATH ?? "").split(":").filter(Boolean))
      candidates.push(join(prefix, "share", pkg, inside));
    for (let dir = urdfDir; dir !== undefined;) {
      if (dir.endsWith(`/${pkg}`)) candidates.push(join(dir, inside));
      candidates.push(join(dir, pkg, inside));
      const up = dirname(dir);
      dir = up === dir ? undefined : up;
    }
  } else if (isAbsolute(filename)) {
    candidates.push(filename);
  } else if (urdfDir !== undefined) {
    candidates.push(join(urdfDir, filename));
  }
  const found = candidates.find((c) => existsSync(c));
  return found === undefined ? { tried: candidates } : { path: found };
}
