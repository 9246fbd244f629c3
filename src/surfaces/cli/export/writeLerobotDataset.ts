import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { parquetWriteFile } from "hyparquet-writer";
import type { Episode } from "./lerobotEpisodes.js";

/**
 * LeRobotDataset v3.0 as LeRobot's own code lays it out
 * (huggingface/lerobot src/lerobot/datasets/utils.py: CODEBASE_VERSION
 * "v3.0", INFO_PATH, STATS_PATH, DEFAULT_TASKS_PATH "meta/tasks.parquet",
 * DEFAULT_EPISODES_PATH, DEFAULT_DATA_PATH, DEFAULT_VIDEO_PATH with
 * "chunk-{chunk_index:03d}/file-{file_index:03d}", DEFAULT_FEATURES, and
 * create_empty_dataset_info's keys). Every episode goes in file 000 of
 * chunk 000 (v3 packs episodes into files of up to 100 MB of data and
 * 500 MB of video; larger exports are not split yet).
 */
const CODEBASE_VERSION = "v3.0";
const FILE = "chunk-000/file-000";
const DATA_PATH = "data/chunk-{chunk_index:03d}/file-{file_index:03d}.parquet";
const VIDEO_PATH = "videos/{video_key}/chunk-{chunk_index:03d}/file-{file_index:03d}.mp4";

const scalar = (dtype: string) => ({ dtype, shape: [1], names: null });

export interface DatasetSummary {
  readonly episodes: number;
  readonly frames: number;
  readonly videos: readonly string[];
}

export function writeLerobotDataset(
  episodes: readonly Episode[],
  out: string,
  fps: number,
  robotType: string,
): DatasetSummary {
  const names = episodes[0]?.names ?? [];
  const tasks = [...new Set(episodes.map((e) => e.task))];
  const frames = episodes.flatMap((e, episodeIndex) =>
    e.frames.map((f, frameIndex) => ({ e, f, episodeIndex, frameIndex })),
  );
  const cameras = [...new Set(episodes.flatMap((e) => e.frames.flatMap((f) => [...f.images.keys()])))].sort();
  const videos = cameras.map((c) => `observation.images.${c}`);
  const column = <T>(
    name: string,
    pick: (row: (typeof frames)[number], index: number) => T,
    type?: "INT64" | "FLOAT",
  ) => ({
    name,
    data: frames.map(pick),
    ...(type ? { type } : {}),
  });
  write(join(out, `data/${FILE}.parquet`), [
    column("observation.state", (r) => [...r.f.state]),
    column("action", (r) => [...r.f.action]),
    column("timestamp", (r) => r.frameIndex / fps, "FLOAT"),
    column("frame_index", (r) => BigInt(r.frameIndex), "INT64"),
    column("episode_index", (r) => BigInt(r.episodeIndex), "INT64"),
    column("index", (_r, i) => BigInt(i), "INT64"),
    column("task_index", (r) => BigInt(tasks.indexOf(r.e.task)), "INT64"),
  ]);
  const shapes = new Map(cameras.map((c, k) => [c, encodeVideo(out, videos[k] ?? c, episodes, c, fps)]));
  writeEpisodes(out, episodes, videos, fps);
  write(join(out, "meta/tasks.parquet"), [
    { name: "task_index", data: tasks.map((_t, i) => BigInt(i)), type: "INT64" },
    { name: "task", data: tasks, type: "STRING" },
  ]);
  json(
    join(out, "meta/info.json"),
    infoOf({
      names,
      cameras,
      shapes,
      fps,
      robotType,
      episodes: episodes.length,
      frames: frames.length,
      tasks: tasks.length,
    }),
  );
  json(join(out, "meta/stats.json"), {
    "observation.state": statsOf(frames.map((r) => r.f.state)),
    action: statsOf(frames.map((r) => r.f.action)),
    timestamp: statsOf(frames.map((r) => [r.frameIndex / fps])),
    frame_index: statsOf(frames.map((r) => [r.frameIndex])),
    episode_index: statsOf(frames.map((r) => [r.episodeIndex])),
    index: statsOf(frames.map((_r, i) => [i])),
    task_index: statsOf(frames.map((r) => [tasks.indexOf(r.e.task)])),
  });
  return { episodes: episodes.length, frames: frames.length, videos };
}

/** meta/info.json: create_empty_dataset_info's keys, filled in. */
function infoOf(o: {
  readonly names: readonly string[];
  readonly cameras: readonly string[];
  readonly shapes: ReadonlyMap<string, number[]>;
  readonly fps: number;
  readonly robotType: string;
  readonly episodes: number;
  readonly frames: number;
  readonly tasks: number;
}): object {
  const vector = { dtype: "float64", shape: [o.names.length], names: [...o.names] };
  const features: Record<string, unknown> = {
    "observation.state": vector,
    action: vector,
    ...Object.fromEntries<unknown>(
      o.cameras.map((c) => [
        `observation.images.${c}`,
        {
          dtype: "video",
          shape: o.shapes.get(c),
          names: ["height", "width", "channels"],
          info: { "video.fps": o.fps, "video.codec": "h264", "video.pix_fmt": "yuv420p" },
        },
      ]),
    ),
    timestamp: scalar("float32"),
    frame_index: scalar("int64"),
    episode_index: scalar("int64"),
    index: scalar("int64"),
    task_index: scalar("int64"),
  };
  return {
    codebase_version: CODEBASE_VERSION,
    robot_type: o.robotType,
    total_episodes: o.episodes,
    total_frames: o.frames,
    total_tasks: o.tasks,
    chunks_size: 1000,
    data_files_size_in_mb: 100,
    video_files_size_in_mb: 500,
    fps: o.fps,
    splits: { train: `0:${o.episodes}` },
    data_path: DATA_PATH,
    video_path: o.cameras.length > 0 ? VIDEO_PATH : null,
    features,
  };
}

function writeEpisodes(out: string, episodes: readonly Episode[], videos: readonly string[], fps: number): void {
  let from = 0;
  const rows = episodes.map((e, i) => {
    const row = { index: i, from, to: from + e.frames.length, length: e.frames.length, task: e.task };
    from = row.to;
    return row;
  });
  const int = (name: string, pick: (r: (typeof rows)[number]) => number) => ({
    name,
    data: rows.map((r) => BigInt(pick(r))),
    type: "INT64" as const,
  });
  // In the one video file every episode follows the one before: its frames start where the last one's ended.
  const videoColumns = videos.flatMap((key) => [
    int(`videos/${key}/chunk_index`, () => 0),
    int(`videos/${key}/file_index`, () => 0),
    { name: `videos/${key}/from_timestamp`, data: rows.map((r) => r.from / fps), type: "DOUBLE" as const },
    { name: `videos/${key}/to_timestamp`, data: rows.map((r) => r.to / fps), type: "DOUBLE" as const },
  ]);
  write(join(out, `meta/episodes/${FILE}.parquet`), [
    int("episode_index", (r) => r.index),
    { name: "tasks", data: rows.map((r) => [r.task]) },
    int("length", (r) => r.length),
    int("data/chunk_index", () => 0),
    int("data/file_index", () => 0),
    int("dataset_from_index", (r) => r.from),
    int("dataset_to_index", (r) => r.to),
    ...videoColumns,
    int("meta/episodes/chunk_index", () => 0),
    int("meta/episodes/file_index", () => 0),
  ]);
}

/** One MP4 of every episode's frames of `camera`, in order, at `fps` (ffmpeg, H.264); returns [height, width, 3]. */
function encodeVideo(out: string, key: string, episodes: readonly Episode[], camera: string, fps: number): number[] {
  const path = join(out, `videos/${key}/${FILE}.mp4`);
  mkdirSync(dirname(path), { recursive: true });
  const images = episodes.flatMap((e) =>
    e.frames.map((f) => f.images.get(camera) ?? f.images.values().next().value ?? Buffer.alloc(0)),
  );
  const args = ["-hide_banner", "-loglevel", "error", "-y", "-f", "image2pipe", "-framerate", String(fps), "-i", "-"];
  const encoded = spawnSync(
    "ffmpeg",
    [
      ...args,
      "-c:v",
      "libx264",
      "-pix_fmt",
      "yuv420p",
      "-vf",
      "pad=ceil(iw/2)*2:ceil(ih/2)*2",
      "-r",
      String(fps),
      path,
    ],
    {
      input: Buffer.concat(images),
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  if (encoded.error || encoded.status !== 0)
    throw new Error(`ffmpeg could not encode ${path}: ${encoded.error?.message ?? encoded.stderr.toString().trim()}`);
  const probe = spawnSync("ffprobe", [
    "-v",
    "error",
    "-select_streams",
    "v:0",
    "-show_entries",
    "stream=width,height",
    "-of",
    "csv=p=0",
    path,
  ]);
  const [width, height] = probe.stdout.toString().trim().split(",").map(Number);
  return [height ?? 0, width ?? 0, 3];
}

function statsOf(vectors: readonly (readonly number[])[]): Record<string, number[]> {
  const dims = vectors[0]?.length ?? 0;
  const at = (k: number): number[] => vectors.map((v) => v[k] ?? 0);
  const mean = (xs: number[]): number => xs.reduce((s, x) => s + x, 0) / Math.max(1, xs.length);
  const range = [...Array(dims).keys()];
  return {
    min: range.map((k) => Math.min(...at(k))),
    max: range.map((k) => Math.max(...at(k))),
    mean: range.map((k) => mean(at(k))),
    std: range.map((k) => {
      const xs = at(k);
      const m = mean(xs);
      return Math.sqrt(mean(xs.map((x) => (x - m) ** 2)));
    }),
    count: [vectors.length],
  };
}

function write(path: string, columnData: Parameters<typeof parquetWriteFile>[0]["columnData"]): void {
  mkdirSync(dirname(path), { recursive: true });
  parquetWriteFile({ filename: path, columnData });
}

function json(path: string, value: unknown): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, JSON.stringify(value, null, 4) + "\n");
}
