import { isAbsolute, resolve } from "node:path";

type Raw = Record<string, unknown>;

/**
 * Every key of an arm config that names a file, with where it sits. A
 * relative path in any of them means relative to the config file's folder,
 * wherever the bridge was started from: a config and the files beside it
 * move together. A new file key is added here, once.
 */
const FILE_KEYS: readonly { readonly key: string; readonly at: (raw: unknown, map: (path: unknown) => unknown) => unknown }[] = [
  { key: "arm.urdf", at: (raw, map) => withChild(raw, "arm", (arm) => withChild(arm, "urdf", map)) },
  { key: "bus.calibration", at: (raw, map) => withChild(raw, "bus", (bus) => withChild(bus, "calibration", map)) },
  {
    key: "cameras[].source.file",
    at: (raw, map) => withChild(raw, "cameras", (cameras) => (Array.isArray(cameras) ? cameras.map((c: unknown) => withChild(c, "source", (s) => withChild(s, "file", map))) : cameras)),
  },
];

/** The config (file form, not yet validated) with each relative file path resolved against `baseDir`. */
export function resolveConfigPaths(raw: unknown, baseDir: string): unknown {
  let out = raw;
  for (const k of FILE_KEYS) out = k.at(out, (p) => (typeof p === "string" && p !== "" && !isAbsolute(p) ? resolve(baseDir, p) : p));
  return out;
}

/** `parent` with `parent[key]` mapped (a copy when it changes); anything else, or a missing key, as it was. */
function withChild(parent: unknown, key: string, map: (value: unknown) => unknown): unknown {
  if (!isObject(parent) || !Object.hasOwn(parent, key)) return parent;
  const value = parent[key];
  const mapped = map(value);
  return mapped === value ? parent : { ...parent, [key]: mapped };
}

function isObject(v: unknown): v is Raw {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}
