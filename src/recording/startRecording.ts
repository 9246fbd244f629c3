import { resolve } from "node:path";
import type { HostedBridgePort } from "../bridge/BridgePort.js";
import type { EpisodeRecorder, RecordingSettings } from "./EpisodeRecorder.js";

/** The section's defaults (src/config/sections/recording.ts), for a recording asked by `--record` alone. */
const DEFAULTS: Omit<RecordingSettings, "dir"> = {
  maxGib: 10,
  maxFileMib: 1024,
  jointRateHz: 50,
  chunkKib: 256,
  cameras: { rateHz: 1, aroundCalls: true },
};

/**
 * What to record, from the config's `recording:` section and `--record DIR`
 * (which names the folder, and turns recording on when the config does not):
 * undefined when neither asks for it.
 */
export function recordingSettingsOf(
  bridge: HostedBridgePort,
  recordDir: string | undefined,
): RecordingSettings | undefined {
  const section = bridge.config.recording;
  const dir = recordDir ?? section?.dir;
  if (dir === undefined) return undefined;
  return { ...DEFAULTS, ...section, dir: resolve(dir) };
}

/**
 * Starts recording `bridge` when asked (see recordingSettingsOf); the caller
 * closes what it returns. The recorder (MCAP writer, compression, schemas) is
 * loaded only then: a serve that records nothing starts without it.
 */
export async function startRecording(
  bridge: HostedBridgePort,
  recordDir: string | undefined,
): Promise<EpisodeRecorder | undefined> {
  const settings = recordingSettingsOf(bridge, recordDir);
  if (!settings) return undefined;
  const { EpisodeRecorder } = await import("./EpisodeRecorder.js");
  return new EpisodeRecorder(bridge, settings);
}
