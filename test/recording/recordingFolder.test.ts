import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readRecording } from "../../src/recording/readRecording.js";
import { RECORDING_CHANNELS } from "../../src/recording/recordingChannels.js";
import { RecordingFolder, recordingFiles } from "../../src/recording/RecordingFolder.js";

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A log line of `n` characters that lz4 cannot shrink much (a counter's digits, hashed into letters). */
function noisy(i: number, n: number): string {
  let s = "";
  let x = (i + 1) * 2654435761;
  while (s.length < n) {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    s += String.fromCharCode(33 + (x % 90));
  }
  return s;
}

describe("a recording folder", () => {
  it("rotates by size, and keeps the folder within its budget by removing the oldest files, saying which", async () => {
    dir = mkdtempSync(join(tmpdir(), "armb-rec-folder-"));
    // An older session's file, as a previous serve left it.
    writeFileSync(join(dir, "armbridge-2000-01-01T00-00-00-000Z-0000.mcap"), Buffer.alloc(300 * 1024));
    const removed: string[] = [];
    const folder = new RecordingFolder({
      dir,
      maxBytes: 400 * 1024,
      maxFileBytes: 100 * 1024,
      chunkBytes: 8 * 1024,
      metadata: { arm: "test" },
      onRemoved: (path) => removed.push(path),
    });
    for (let i = 0; i < 400; i++) {
      folder.write(RECORDING_CHANNELS.log, 1_000 + i, { message: noisy(i, 1000), level: 2 });
      await folder.drain();
    }
    await folder.close();
    const files = recordingFiles(dir);
    const total = files.reduce((sum, f) => sum + statSync(f).size, 0);
    expect(total).toBeLessThanOrEqual(400 * 1024);
    expect(removed[0]).toContain("armbridge-2000-01-01");
    expect(removed.length).toBeGreaterThan(1);
    // What is left is whole: each file complete, its messages in order, the newest ones kept.
    const kept = files.map((f) => readRecording(f));
    expect(kept.every((r) => r.complete)).toBe(true);
    const times = kept.flatMap((r) => r.messages.map((m) => m.ms));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(times.at(-1)).toBe(1_399);
    for (const f of files) expect(statSync(f).size).toBeLessThan(100 * 1024 + 16 * 1024);
  });
});
