import { readFileSync } from "node:fs";
import { join } from "node:path";
import { McapIndexedReader } from "@mcap/core";
import { loadDecompressHandlers } from "@mcap/support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EpisodeRecorder } from "../../src/recording/EpisodeRecorder.js";
import { readRecording, type Recording } from "../../src/recording/readRecording.js";
import { recordingFiles } from "../../src/recording/RecordingFolder.js";
import { motionIntervals, startSimBridge, type SimBridge } from "../fixtures/gemini/simBridge.js";

// A recorded session of the simulated arm, read back two ways: with
// @mcap/core's indexed reader and @mcap/support's decompressors (as Foxglove
// reads it: summary, indexes, schemas), and with readRecording (the stream
// reader export uses). Judged against the simulator's effects log.

const STATUS_PERIOD_MS = 10; // firmware-sim's default status rate, 100 Hz (firmware-sim/startSimulator.ts)

let sim: SimBridge;
let dir: string;
let recording: Recording;
let file: string;
let secondRecording: Recording;
const received: { ms: number; axes: { name: string; velocity: number }[]; still: boolean }[] = [];

beforeAll(async () => {
  sim = await startSimBridge({ motionTime: { kind: "fixed", ms: 400 } });
  dir = join(sim.dir, "rec");
  const settings = {
    dir,
    maxGib: 1,
    maxFileMib: 64,
    jointRateHz: 50,
    chunkKib: 16,
    // No camera here: the simulated camera draws in this process, and a drawing holds the
    // event loop (and the statuses' receipt stamps) back; frames are recorded in the next session.
    cameras: { rateHz: 0, aroundCalls: false },
  };
  const recorder = new EpisodeRecorder(sim.bridge, settings);
  const stopWatching = sim.bridge.arm.onStatus((s) =>
    received.push({
      ms: s.stampMs,
      axes: Object.entries(s.axes).map(([name, a]) => ({ name, velocity: a.velocity })),
      still: Object.values(s.axes).every((a) => !a.moving && a.velocity === 0),
    }),
  );
  const client = { kind: "agent" as const, name: "test-model", session: "s-1" };
  await sim.bridge.execute([{ id: "m1", name: "move_joints", args: { positions: { elbow: 0.6 } } }], { client });
  await sim.bridge.execute(
    [{ id: "m2", name: "move_joints", args: { positions: { elbow: 0.1, shoulder_pan: 0.3 } } }],
    {
      client,
    },
  );
  await sim.bridge.operator.halt({ source: "console", operator: "ana" });
  sim.bridge.operator.releaseHalt({ operator: "ana" });
  stopWatching();
  await recorder.close();
  file = String(recordingFiles(dir)[0]);
  recording = readRecording(String(file));
  // A second session of the same folder: a file of its own, with camera frames.
  const second = new EpisodeRecorder(sim.bridge, { ...settings, cameras: { rateHz: 2, aroundCalls: true } });
  await sim.bridge.execute([{ id: "m3", name: "move_joints", args: { positions: { elbow: 0.4 } } }], { client });
  await second.close();
  secondRecording = readRecording(second.currentFile);
}, 60_000);

afterAll(async () => {
  await sim?.close();
});

describe("a recorded session", () => {
  it("is one complete, indexed MCAP file with a summary, every channel on a JSON Schema", async () => {
    expect(recordingFiles(dir)).toHaveLength(2);
    const bytes = readFileSync(String(file));
    const reader = await McapIndexedReader.Initialize({
      readable: {
        size: () => Promise.resolve(BigInt(bytes.byteLength)),
        read: (offset, length) => Promise.resolve(bytes.subarray(Number(offset), Number(offset + length))),
      },
      decompressHandlers: await loadDecompressHandlers(),
    });
    expect(reader.chunkIndexes.length).toBeGreaterThan(1);
    expect(reader.chunkIndexes.every((c) => c.compression === "lz4")).toBe(true);
    const topics = new Map([...reader.channelsById.values()].map((c) => [c.topic, reader.schemasById.get(c.schemaId)]));
    const want: Record<string, string> = {
      "/joint_states": "foxglove.JointStates",
      "/tf": "foxglove.FrameTransforms",
      "/scene": "foxglove.SceneUpdate",
      "/armbridge/calls": "armbridge.Call",
      "/armbridge/actions": "armbridge.Action",
      "/armbridge/operator": "armbridge.Operator",
      "/log": "foxglove.Log",
    };
    for (const [topic, schema] of Object.entries(want)) {
      const s = topics.get(topic);
      expect(s?.name, topic).toBe(schema);
      expect(s?.encoding).toBe("jsonschema");
      const parsed = JSON.parse(new TextDecoder().decode(s?.data)) as { title?: string; type?: string };
      expect(parsed.type).toBe("object");
    }
    let count = 0;
    for await (const m of reader.readMessages()) {
      JSON.parse(new TextDecoder().decode(m.data));
      count++;
    }
    expect(count).toBe(recording.messages.length);
    expect(recording.complete).toBe(true);
  });

  it("has the intent and the settlement of every motion in the ledger on /armbridge/actions", () => {
    const rows = sim.bridge.actions.list().filter((r) => r.callId !== "m3");
    expect(rows.length).toBeGreaterThanOrEqual(2);
    const actions = recording.messages.filter((m) => m.topic === "/armbridge/actions").map((m) => m.data);
    for (const row of rows) {
      const mine = actions.filter((a) => a.action_id === row.actionId);
      expect(mine.map((a) => a.kind)).toEqual(["intent", "start", "settlement"]);
      expect(mine[2]?.state).toBe(row.state);
      expect(mine[0]?.command).toEqual(JSON.parse(JSON.stringify(row.command)));
    }
  });

  it("shows in /joint_states the motions the effects log shows, start and end at the first status that could show them", () => {
    const joints = recording.messages.filter((m) => m.topic === "/joint_states");
    const movingAt = (axes: { name: string; velocity: number }[], name: string): boolean =>
      axes.some((a) => a.name === name && a.velocity !== 0);
    const firstSession = new Set(
      sim.bridge.actions
        .list()
        .filter((r) => r.callId !== "m3")
        .map((r) => r.actionId),
    );
    const intervals = [...motionIntervals(sim.effects())].filter(([id]) => firstSession.has(id));
    expect(intervals).toHaveLength(2);
    for (const [, motion] of intervals) {
      const joint = String(motion.joints[0]);
      const end = motion.end ?? NaN;
      // What the bridge was told, status by status: the truest the recording can be.
      // Log times are whole nanoseconds, so a status stamp and its log time can differ by a fraction of a microsecond:
      // the window's edges allow for it on both sides.
      const inWindow = (ms: number): boolean => ms >= motion.start - 1e-3 && ms <= end + STATUS_PERIOD_MS * 5;
      const told = received.filter((s) => inWindow(s.ms));
      // Up to the first status at the end that shows the joint still: calls run back to back, and under load the
      // next motion can start inside the window.
      const stop = told.find((s) => s.ms >= end - 1e-3 && !movingAt(s.axes, joint))?.ms ?? Infinity;
      const toldMoving = told.filter((s) => s.ms <= stop + 1e-3 && movingAt(s.axes, joint));
      const kept = joints.filter((m) => inWindow(m.ms));
      const keptMoving = kept.filter(
        (m) => m.ms <= stop + 1e-3 && movingAt(m.data.joints as { name: string; velocity: number }[], joint),
      );
      expect(keptMoving.length, `${joint} moves in the recording while the effects log says it moved`).toBeGreaterThan(
        0,
      );
      // The motion starts at the first status after the effects log's start that shows it, and ends at the last.
      // (Log times are whole nanoseconds: equal to the status stamp within a microsecond.)
      expect(keptMoving[0]?.ms).toBeCloseTo(toldMoving[0]?.ms ?? NaN, 3);
      expect(keptMoving.at(-1)?.ms).toBeCloseTo(toldMoving.at(-1)?.ms ?? NaN, 3);
      // ... and that status is the first (or, when the arm reports motion a status late, the second) after the start.
      expect(told.indexOf(toldMoving[0]!)).toBeLessThanOrEqual(1);
      // The first status after the end where no axis is moving, as the arm flags it or by its velocity (the edge
      // the recorder keeps whatever the rate), and the recording has it. Searched in all that was told: under
      // load it can come later than a few status periods after the effects log's end.
      const firstStill = received.find((s) => s.ms > (toldMoving.at(-1)?.ms ?? Infinity) && s.still);
      expect(joints.some((m) => Math.abs(m.ms - (firstStill?.ms ?? NaN)) < 1e-3)).toBe(true);
    }
  });

  it("has the operator's HALT and release, the calls with their client, frames and transforms", () => {
    const operator = recording.messages.filter((m) => m.topic === "/armbridge/operator").map((m) => m.data.kind);
    expect(operator).toEqual(expect.arrayContaining(["halt", "release"]));
    const calls = recording.messages.filter((m) => m.topic === "/armbridge/calls").map((m) => m.data);
    expect(calls.filter((c) => c.kind === "settled").map((c) => c.call_id)).toEqual(["m1", "m2"]);
    expect(calls[0]?.client).toEqual({ kind: "agent", name: "test-model", session: "s-1" });
    const frame = secondRecording.messages.find((m) => m.topic === "/camera/overhead")?.data;
    expect(secondRecording.messages.find((m) => m.topic === "/camera/overhead")?.schemaName).toBe(
      "foxglove.CompressedImage",
    );
    expect(Buffer.from(String(frame?.data), "base64").subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
    const tf = recording.messages.find((m) => m.topic === "/tf")?.data as { transforms: unknown[] };
    expect(tf.transforms.length).toBeGreaterThan(3);
    const scene = recording.messages.find((m) => m.topic === "/scene")?.data as { entities: { id: string }[] };
    expect(scene.entities.map((e) => e.id)).toContain("links");
  });
});
