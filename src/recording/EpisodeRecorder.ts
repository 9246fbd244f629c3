import type { ArmStatus, BridgeState, ExecutorEvent, HostedBridgePort } from "../bridge/BridgePort.js";
import type { Logger } from "../observability/logger.js";
import { ArmScene } from "./armScene.js";
import { CameraRecorder, type CameraRecording } from "./CameraRecorder.js";
import { actionRecord, eventRecords, type EventRecord } from "./eventRecords.js";
import { RECORDING_CHANNELS, timeOf, LOG_LEVEL } from "./recordingChannels.js";
import { RecordingFolder } from "./RecordingFolder.js";

/** The `recording:` section as code holds it (src/config/sections/recording.ts), with the folder resolved. */
export interface RecordingSettings {
  readonly dir: string;
  readonly maxGib: number;
  readonly maxFileMib: number;
  readonly jointRateHz: number;
  readonly chunkKib: number;
  readonly cameras: CameraRecording;
}

type EnvelopeRefusal = NonNullable<BridgeState["lastEnvelopeRefusal"]>;

/** The scene (volumes, zones) is redrawn at most this often: Foxglove interpolates nothing, 10 Hz reads as motion. */
const SCENE_INTERVAL_MS = 100;

/**
 * Records one bridge's session as MCAP, from the same streams the console
 * and `GET /v1/events` follow (the port's events and the arm's watch): no
 * tap inside the executor, and nothing it does waits on the disk — writes
 * are queued and handed to the kernel chunk by chunk.
 */
export class EpisodeRecorder {
  readonly #bridge: HostedBridgePort;
  readonly #folder: RecordingFolder;
  readonly #scene: ArmScene | undefined;
  readonly #cameras: CameraRecorder;
  readonly #log: Logger;
  readonly #minJointGapMs: number;
  readonly #unsubscribe: (() => void)[];
  /** Which action each call started, so its settlement can be told by the call id. */
  readonly #actionOfCall = new Map<string, string>();
  #lastJointsMs = -Infinity;
  #lastSceneMs = -Infinity;
  #moving = "";
  /** The newest status the rate left out: written after all when the next one is an edge. */
  #held: ArmStatus | undefined;
  /** The newest envelope refusal, as the bridge's state said at the last answer. */
  #refusal: EnvelopeRefusal | undefined;
  readonly #early: string[] = [];
  #closed = false;

  constructor(bridge: HostedBridgePort, settings: RecordingSettings) {
    this.#bridge = bridge;
    this.#log = bridge.logger.child({ component: "recording" });
    this.#minJointGapMs = 1000 / settings.jointRateHz;
    this.#folder = new RecordingFolder({
      dir: settings.dir,
      maxBytes: settings.maxGib * 2 ** 30,
      maxFileBytes: settings.maxFileMib * 2 ** 20,
      chunkBytes: settings.chunkKib * 1024,
      metadata: { arm: bridge.config.arm.name, transport: bridge.arm.kind, ledger: bridge.dataDir },
      onRemoved: (path, bytes) => this.#removed(path, bytes),
    });
    this.#scene = sceneOf(bridge, this.#log);
    this.#cameras = new CameraRecorder(bridge.cameras, settings.cameras, (channel, ms, message) =>
      this.#folder.write(channel, ms, message),
    );
    this.#unsubscribe = [
      bridge.arm.onStatus((s) => this.#onStatus(s)),
      bridge.onEvent((e) => this.#onEvent(e)),
      bridge.arm.onLinkState((state) => this.#logLine(LOG_LEVEL.warning, `arm link: ${JSON.stringify(state)}`)),
    ];
    this.#logLine(LOG_LEVEL.info, `recording ${bridge.config.arm.name} to ${this.#folder.current}`);
    for (const words of this.#early.splice(0)) this.#logLine(LOG_LEVEL.warning, words);
    for (const w of bridge.startupWarnings) this.#logLine(LOG_LEVEL.warning, w);
    const status = bridge.arm.latestStatus();
    if (status) this.#onStatus(status);
    this.#log.info({ file: this.#folder.current }, "recording the session");
  }

  /** The file being written now. */
  get currentFile(): string {
    return this.#folder.current;
  }

  /** An agent's model turn, on `/armbridge/model`: only when the agent allows its turns to be kept. */
  modelTurn(turn: { readonly session: string; readonly role: string; readonly text: string }): void {
    if (this.#closed) return;
    const ms = Date.now();
    this.#folder.write(RECORDING_CHANNELS.model, ms, { timestamp: timeOf(ms), kind: "turn", ...turn });
  }

  /** Settles once everything recorded so far is handed to the MCAP writer. */
  async drain(): Promise<void> {
    await this.#folder.drain();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const off of this.#unsubscribe) off();
    await this.#cameras.close();
    this.#logLine(LOG_LEVEL.info, "recording ended");
    await this.#folder.close();
  }

  #onStatus(status: ArmStatus): void {
    if (this.#closed) return;
    const ms = status.stampMs;
    // Both sides of a status where an axis starts or stops moving are kept, whatever the rate:
    // the ends of a motion are what a replay is judged by. An arm may flag an axis moving while
    // its velocity already reads 0 (or the reverse), so a change of either is an edge.
    const moving = Object.entries(status.axes)
      .filter(([, a]) => a.moving || a.velocity !== 0)
      .map(([n, a]) => `${n}:${a.moving ? "m" : ""}${a.velocity !== 0 ? "v" : ""}`)
      .join(",");
    const edge = moving !== this.#moving;
    this.#moving = moving;
    if (!edge && ms - this.#lastJointsMs < this.#minJointGapMs) {
      this.#held = status;
      return;
    }
    if (edge && this.#held) this.#writeStatus(this.#held, false);
    this.#held = undefined;
    this.#writeStatus(status, edge);
  }

  #writeStatus(status: ArmStatus, edge: boolean): void {
    const ms = status.stampMs;
    this.#lastJointsMs = ms;
    const joints = Object.entries(status.axes).map(([name, a]) => ({
      name,
      position: a.position,
      velocity: a.velocity,
    }));
    this.#folder.write(RECORDING_CHANNELS.joints, ms, { timestamp: timeOf(ms), joints });
    if (!this.#scene) return;
    const pose = Object.fromEntries(Object.entries(status.axes).map(([n, a]) => [n, a.position]));
    const tf = this.#scene.transforms(pose, ms);
    if (tf) this.#folder.write(RECORDING_CHANNELS.tf, ms, tf);
    if (edge || ms - this.#lastSceneMs >= SCENE_INTERVAL_MS) this.#writeScene(pose, ms);
  }

  #writeScene(pose: Readonly<Record<string, number>>, ms: number): void {
    const scene = this.#scene?.update(pose, this.#refusal, ms);
    if (!scene) return;
    this.#lastSceneMs = ms;
    this.#folder.write(RECORDING_CHANNELS.scene, ms, scene);
  }

  #onEvent(e: ExecutorEvent): void {
    if (this.#closed) return;
    const ms = Date.now();
    const records: EventRecord[] = [];
    if (e.type === "started") {
      this.#actionOfCall.set(e.callId, e.actionId);
      const row = this.#bridge.actions.get(e.actionId);
      if (row) records.push(actionRecord(row, "intent", Math.min(row.createdAt, ms)));
      records.push({
        channel: "actions",
        ms,
        message: { timestamp: timeOf(ms), kind: "start", action_id: e.actionId, call_id: e.callId, tool: e.tool },
      });
      this.#cameras.aroundCall();
    }
    records.push(...eventRecords(e, ms));
    if (e.type === "settled")
      records.push(...this.#settlement(e.callId, "action_id" in e.result ? e.result.action_id : undefined, ms));
    if (e.type === "action_resolved") {
      const kind = e.row.operator === undefined ? "settlement" : "confirmation";
      records.push(actionRecord(e.row, kind, ms));
      if (kind === "confirmation")
        records.push({
          channel: "operator",
          ms,
          message: {
            timestamp: timeOf(ms),
            kind: "confirmation",
            operator: e.row.operator ?? "",
            action_id: e.row.actionId,
            detail: { state: e.row.state, note: e.row.operatorNote ?? "" },
          },
        });
    }
    for (const r of records) this.#folder.write(RECORDING_CHANNELS[r.channel], r.ms, r.message);
  }

  #settlement(callId: string, resultActionId: string | undefined, ms: number): EventRecord[] {
    const actionId = resultActionId ?? this.#actionOfCall.get(callId);
    this.#actionOfCall.delete(callId);
    const status = this.#bridge.arm.latestStatus();
    // A refusal or a settled motion changes what the scene shows: redraw it now, not at the next status.
    // A refusal is only ever met by a call: the state is asked once per answer, not at every status.
    this.#refusal = this.#bridge.state().lastEnvelopeRefusal;
    if (status) this.#writeScene(Object.fromEntries(Object.entries(status.axes).map(([n, a]) => [n, a.position])), ms);
    if (actionId === undefined) return [];
    const row = this.#bridge.actions.get(actionId);
    if (!row) return [];
    this.#cameras.aroundCall();
    return [actionRecord(row, "settlement", row.settledAt ?? ms)];
  }

  #logLine(level: number, message: string): void {
    const ms = Date.now();
    this.#folder.write(RECORDING_CHANNELS.log, ms, {
      timestamp: timeOf(ms),
      level,
      message,
      name: "armbridge.recording",
      file: "",
      line: 0,
    });
  }

  #removed(path: string, bytes: number): void {
    const words = `recording budget: removed ${path} (${bytes} bytes), the oldest recording`;
    this.#log.warn({ path, bytes }, words);
    // The folder removes files as it opens its first one, before it is ours to write to: those wait for it.
    if ((this.#folder as RecordingFolder | undefined) === undefined) this.#early.push(words);
    else this.#logLine(LOG_LEVEL.warning, words);
  }
}

/** The arm's 3D scene, or none (and said once) when its kinematics cannot be built. */
function sceneOf(bridge: HostedBridgePort, log: Logger): ArmScene | undefined {
  try {
    return ArmScene.of(bridge.config);
  } catch (error) {
    log.warn({ err: error }, "recording: no /tf or /scene (the arm's kinematics could not be built)");
    return undefined;
  }
}
