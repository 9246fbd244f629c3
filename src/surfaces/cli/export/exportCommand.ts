import { existsSync, readdirSync } from "node:fs";
import { resolve } from "node:path";
import { readRecording } from "../../../recording/readRecording.js";
import { recordingFiles } from "../../../recording/RecordingFolder.js";
import type { CliIo } from "../../../commandLine/CliIo.js";
import { cliUsageError } from "../../runtime/cliUsageError.js";
import { parseCommandFlags, positiveInt } from "../../runtime/parseCommandFlags.js";
import { episodesOf } from "./lerobotEpisodes.js";
import { writeLerobotDataset } from "./writeLerobotDataset.js";

export const EXPORT_FLAGS = { from: { type: "string" }, to: { type: "string" }, fps: { type: "string" } } as const;

export const EXPORT_HELP = `Usage: armbridge export lerobot --from DIR --to OUT [--fps N]

Turns the MCAP recordings of \`serve --record DIR\` into a LeRobotDataset v3.0
folder (docs/recording.md): meta/info.json, meta/stats.json,
meta/tasks.parquet, meta/episodes/, data/ (parquet) and videos/ (MP4, by
ffmpeg, which must be on the PATH). One episode per run of calls from one
client session; observation.state is the joints as reported, action the
target of the motion under way. A file cut short (a killed serve) is read up
to its last whole chunk. Prints one JSON line: what was written.

Flags:
  --from DIR   the recording folder (every *.mcap in it, oldest first)
  --to OUT     the dataset folder to write; must not exist yet
  --fps N      frames a second of the dataset (default 30)`;

export function exportCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandFlags(argv, EXPORT_FLAGS);
  if (positionals[0] !== "lerobot")
    throw cliUsageError(
      `export needs a format: armbridge export lerobot --from DIR --to OUT (got ${JSON.stringify(positionals[0] ?? "")})`,
    );
  if (positionals.length > 1) throw cliUsageError(`unexpected argument ${JSON.stringify(positionals[1])}`);
  if (!values.from || !values.to) throw cliUsageError("export lerobot needs --from DIR and --to OUT");
  const from = resolve(values.from);
  const to = resolve(values.to);
  if (!existsSync(from)) throw cliUsageError(`--from ${from}: no such folder`);
  if (existsSync(to) && readdirSync(to).length > 0)
    throw cliUsageError(`--to ${to}: the folder exists and is not empty`);
  const fps = positiveInt("--fps", values.fps) ?? 30;
  const recordings = recordingFiles(from).map((f) => readRecording(f));
  if (recordings.length === 0) throw cliUsageError(`--from ${from}: no .mcap recordings in it`);
  const episodes = episodesOf(recordings, fps);
  const robot = recordings[0]?.metadata.arm ?? "armbridge";
  const summary = writeLerobotDataset(episodes, to, fps, robot);
  io.stdout.write(
    JSON.stringify({
      event: "exported",
      to,
      fps,
      ...summary,
      cut_short: recordings.filter((r) => !r.complete).map((r) => r.path),
    }) + "\n",
  );
  return Promise.resolve(0);
}
