import { z } from "zod";
import { name } from "../schemaPrimitives.js";

/**
 * The `recording:` section (docs/recording.md): every session of serve kept
 * as MCAP files Foxglove opens, and `armbridge export lerobot` reads. Off
 * unless the section names a folder (or serve is given `--record DIR`).
 */
const recordingFile = z
  .object({
    dir: z
      .string()
      .min(1)
      .describe("The folder the MCAP files go in (relative: to the working directory). `serve --record DIR` overrides it."),
    max_gib: z
      .number()
      .positive()
      .max(100_000)
      .default(10)
      .describe("Disk budget of the folder's recordings (GiB): past it, the oldest files are removed, and the log says which."),
    max_file_mib: z
      .number()
      .int()
      .min(1)
      .max(65_536)
      .default(1024)
      .describe("A file past this size (MiB) is closed and the next one started."),
    joint_rate_hz: z
      .number()
      .positive()
      .max(1000)
      .default(50)
      .describe("At most this many `/joint_states` (and `/tf`) messages a second, whatever rate the arm reports at."),
    chunk_kib: z
      .number()
      .int()
      .min(1)
      .max(65_536)
      .default(256)
      .describe("MCAP chunk size (KiB): a killed serve loses at most the chunk being filled."),
    cameras: z
      .object({
        rate_hz: z
          .number()
          .min(0)
          .max(30)
          .default(1)
          .describe("Frames a second recorded from each camera on `/camera/<name>` (0: only around calls)."),
        around_calls: z
          .boolean()
          .default(true)
          .describe("Also record a frame from each camera when a motion starts and when it settles."),
        only: z.array(name).max(64).optional().describe("Record these cameras only (default: every configured camera)."),
      })
      .strict()
      .default({ rate_hz: 1, around_calls: true })
      .describe("Which camera frames go into the recording, and how often."),
  })
  .strict();

export const recordingSection = {
  recording: recordingFile.optional().describe("Record every session as MCAP (off unless given): docs/recording.md."),
};
