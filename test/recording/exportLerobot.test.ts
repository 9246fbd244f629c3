import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parquetReadObjects } from "hyparquet";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EpisodeRecorder } from "../../src/recording/EpisodeRecorder.js";
import { readRecording, type Recording } from "../../src/recording/readRecording.js";
import { recordingFiles } from "../../src/recording/RecordingFolder.js";
import { exportCommand } from "../../src/surfaces/cli/export/exportCommand.js";
import { captureIo } from "../support/captureIo.js";
import { startSimBridge, type SimBridge } from "../fixtures/gemini/simBridge.js";

// `armbridge export lerobot` of a recorded session of the simulated arm: the
// dataset's parquet read back with hyparquet and its MP4 with ffprobe, each
// checked against the MCAP it came from. Not checked here: that LeRobot's own
// Python loader opens it (no Python LeRobot on this machine).
const hasFfmpeg = spawnSync("ffmpeg", ["-version"]).status === 0;
if (!hasFfmpeg) console.warn("skipping the LeRobot export test: ffmpeg is not on the PATH");

const FPS = 10;
let sim: SimBridge;
let out: string;
let recording: Recording;
let printed: Record<string, unknown>;

async function read(path: string): Promise<Record<string, unknown>[]> {
  const bytes = readFileSync(path);
  return (await parquetReadObjects({
    file: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength),
  })) as Record<string, unknown>[];
}

describe.skipIf(!hasFfmpeg)("armbridge export lerobot", () => {
  beforeAll(async () => {
    sim = await startSimBridge({ motionTime: { kind: "fixed", ms: 600 } });
    const dir = join(sim.dir, "rec");
    const recorder = new EpisodeRecorder(sim.bridge, {
      dir,
      maxGib: 1,
      maxFileMib: 64,
      jointRateHz: 50,
      chunkKib: 64,
      cameras: { rateHz: 2, aroundCalls: true },
    });
    const a = { kind: "agent" as const, name: "model-a", session: "s-1" };
    const b = { kind: "agent" as const, name: "model-a", session: "s-2" };
    await sim.bridge.execute([{ id: "e1", name: "move_joints", args: { positions: { elbow: 0.5 } } }], { client: a });
    await sim.bridge.execute([{ id: "e2", name: "move_joints", args: { positions: { elbow: 0.9 } } }], { client: a });
    await sim.bridge.execute([{ id: "e3", name: "move_joints", args: { positions: { shoulder_pan: 0.4 } } }], {
      client: b,
    });
    await recorder.close();
    recording = readRecording(String(recordingFiles(dir)[0]));
    out = join(sim.dir, "dataset");
    const io = captureIo();
    expect(await exportCommand(["lerobot", "--from", dir, "--to", out, "--fps", String(FPS)], io)).toBe(0);
    printed = JSON.parse(io.out()) as Record<string, unknown>;
  }, 120_000);

  afterAll(async () => {
    await sim?.close();
  });

  it("lays out LeRobotDataset v3.0: info, stats, tasks, episodes, data and videos", async () => {
    for (const f of [
      "meta/info.json",
      "meta/stats.json",
      "meta/tasks.parquet",
      "meta/episodes/chunk-000/file-000.parquet",
      "data/chunk-000/file-000.parquet",
      "videos/observation.images.overhead/chunk-000/file-000.mp4",
    ])
      expect(existsSync(join(out, f)), f).toBe(true);
    const info = JSON.parse(readFileSync(join(out, "meta/info.json"), "utf8")) as {
      codebase_version: string;
      fps: number;
      total_episodes: number;
      features: Record<string, { names: string[] }>;
    };
    expect(info.codebase_version).toBe("v3.0");
    expect(info.fps).toBe(FPS);
    expect(info.total_episodes).toBe(2);
    expect(Object.keys(info.features)).toEqual(
      expect.arrayContaining([
        "observation.state",
        "action",
        "observation.images.overhead",
        "timestamp",
        "frame_index",
        "episode_index",
        "index",
        "task_index",
      ]),
    );
    expect(info.features["observation.state"]?.names).toEqual(
      sim.bridge.config.arm.joints.map((j) => j.name).concat(["gripper"]),
    );
    expect(printed).toMatchObject({ episodes: 2, fps: FPS });
  });

  it("has one episode per model session, frames at fps over its span, states and actions as the MCAP holds them", async () => {
    const rows = await read(join(out, "data/chunk-000/file-000.parquet"));
    const episodes = await read(join(out, "meta/episodes/chunk-000/file-000.parquet"));
    const info = JSON.parse(readFileSync(join(out, "meta/info.json"), "utf8")) as {
      total_frames: number;
      features: Record<string, { names: string[] }>;
    };
    expect(rows).toHaveLength(info.total_frames);
    const calls = recording.messages.filter((m) => m.topic === "/armbridge/calls");
    const spans = ["s-1", "s-2"].map((s) =>
      calls.filter((c) => (c.data.client as { session: string }).session === s).map((c) => c.ms),
    );
    for (const [i, span] of spans.entries()) {
      const length = Math.floor(((Math.max(...span) - Math.min(...span)) * FPS) / 1000) + 1;
      expect(episodes[i]).toMatchObject({ episode_index: BigInt(i), length: BigInt(length) });
      expect(rows.filter((r) => r.episode_index === BigInt(i))).toHaveLength(length);
    }
    // Each frame's state is the newest /joint_states at its time.
    const names = info.features["observation.state"]!.names;
    const joints = recording.messages.filter((m) => m.topic === "/joint_states");
    const start = Math.min(...spans[0]!);
    for (const r of rows.filter((x) => x.episode_index === 0n)) {
      const t = start + Number(r.frame_index) * (1000 / FPS);
      const newest = [...joints].reverse().find((m) => m.ms <= t) ?? joints[0]!;
      const axes = newest.data.joints as { name: string; position: number }[];
      expect(r["observation.state"]).toEqual(names.map((n) => axes.find((a) => a.name === n)?.position));
    }
    // Mid-motion, the action is the motion's target.
    const elbow = names.indexOf("elbow");
    expect(
      rows.some((r) => (r.action as number[])[elbow] === 0.9 && (r["observation.state"] as number[])[elbow] !== 0.9),
    ).toBe(true);
  });

  it("has an MP4 whose frame count is the dataset's", () => {
    const probe = spawnSync("ffprobe", [
      "-v",
      "error",
      "-count_frames",
      "-select_streams",
      "v:0",
      "-show_entries",
      "stream=nb_read_frames,r_frame_rate",
      "-of",
      "csv=p=0",
      join(out, "videos/observation.images.overhead/chunk-000/file-000.mp4"),
    ]);
    const [rate, count] = probe.stdout.toString().trim().split(",");
    const info = JSON.parse(readFileSync(join(out, "meta/info.json"), "utf8")) as { total_frames: number };
    expect(rate).toBe(`${FPS}/1`);
    expect(Number(count)).toBe(info.total_frames);
  });
});
