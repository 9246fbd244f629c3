import { isMap, isSeq, parseDocument } from "yaml";
import { cliUsageError } from "../../runtime/cliUsageError.js";
import { setYamlKey } from "../yamlEdit.js";
import { readBoundedText } from "../../../config/files/readBoundedFile.js";
import { writeFileAtomic } from "../../../config/files/writeFileAtomic.js";

export interface TableCalibrationText {
  readonly z: number;
  readonly points: readonly { readonly image: readonly [number, number]; readonly table: readonly [number, number] }[];
}

/** Writes a camera's `table` ({z, points}, one point per line as the shipped configs have them) into the config file, changing nothing else. */
export function writeTableCalibration(configPath: string, camera: string, table: TableCalibrationText): void {
  const text = readBoundedText(configPath, "config");
  if (configPath.endsWith(".json")) {
    const raw = JSON.parse(text) as { cameras?: { name?: string; table?: unknown }[] };
    const c = raw.cameras?.find((x) => x.name === camera);
    if (!c)
      throw cliUsageError(
        `${configPath} has no camera ${JSON.stringify(camera)} (cameras: ${raw.cameras?.map((x) => x.name).join(", ") || "none"})`,
      );
    c.table = table;
    writeFileAtomic(configPath, JSON.stringify(raw, null, 2) + "\n");
    return;
  }
  const cameras = parseDocument(text).get("cameras", true);
  const index = isSeq(cameras) ? cameras.items.findIndex((item) => isMap(item) && item.get("name") === camera) : -1;
  if (index < 0) {
    const named = isSeq(cameras) ? cameras.items.map((item) => (isMap(item) ? String(item.get("name")) : "?")) : [];
    throw cliUsageError(
      `${configPath} has no camera ${JSON.stringify(camera)} under cameras: (cameras: ${named.join(", ") || "none"})`,
    );
  }
  const render = (indent: string): string =>
    [
      ``,
      `${indent}  z: ${table.z}`,
      `${indent}  points:`,
      ...table.points.map((p) => `${indent}    - { image: [${p.image.join(", ")}], table: [${p.table.join(", ")}] }`),
    ].join("\n");
  writeFileAtomic(configPath, setYamlKey(text, ["cameras", index], "table", render, configPath));
}
