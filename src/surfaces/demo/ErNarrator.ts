import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ResultImage } from "../../cameras/CameraImage.js";
import type { CallResult, ExecutorEvent } from "../../bridge/BridgePort.js";
import type { AgentEvent } from "../gemini/AgentEvent.js";
import { progressLine } from "../gemini/progressLine.js";
import { resultOf, type FunctionResponse } from "../toFunctionResponse.js";

/** A frame the session delivered to the model, as saved. */
export interface SavedFrame {
  readonly callId: string;
  readonly camera: string;
  readonly path: string;
  readonly width: number;
  readonly height: number;
  readonly capturedAt: string;
  readonly stale: boolean;
}

/** A move_to_image_point as it went: the point, the frame it was read from, where the bridge took it. */
export interface ImagePointMove {
  readonly callId: string;
  readonly camera: string;
  readonly point: readonly [number, number];
  /** The latest frame of that camera delivered before the call: the picture the point refers to. */
  readonly frame: SavedFrame | undefined;
  readonly tablePoint: { readonly x: number; readonly y: number; readonly z: number } | undefined;
  readonly target: { readonly x: number; readonly y: number; readonly z: number } | undefined;
  readonly result: CallResult;
}

const EXTENSION: Readonly<Record<string, string>> = { "image/jpeg": "jpg", "image/png": "png" };

/**
 * The ER session's story on stdout: each picture the model was given (saved
 * under `<data>/frames/`, path printed), each image point it chose and where
 * the bridge took it, each motion's verdict. Works from the executor's
 * results, so it tells what was delivered and what the arm did, not what the
 * script meant to do.
 */
export class ErNarrator {
  readonly frames: SavedFrame[] = [];
  readonly moves: ImagePointMove[] = [];
  readonly results = new Map<string, { readonly tool: string; readonly result: CallResult }>();
  readonly #framesDir: string;
  readonly #write: (line: string) => void;
  readonly #shown: (path: string) => string;
  readonly #args = new Map<string, Readonly<Record<string, unknown>>>();

  constructor(options: {
    readonly framesDir: string;
    readonly write: (line: string) => void;
    readonly shown: (path: string) => string;
  }) {
    this.#framesDir = options.framesDir;
    this.#write = options.write;
    this.#shown = options.shown;
  }

  readonly onAgentEvent = (_line: string, event: AgentEvent): void => {
    switch (event.type) {
      case "model_turn":
        for (const c of event.calls) this.#args.set(c.id, c.args ?? {});
        this.#write(
          event.calls.length === 0
            ? `ER turn ${event.turn} — the model answers: ${oneLine(event.text)}`
            : `ER turn ${event.turn} — the model calls ${event.calls.map((c) => `${c.name}#${c.id} ${JSON.stringify(c.args ?? {})}`).join(", ")}`,
        );
        if (event.note) this.#write(`  (${event.note})`);
        break;
      case "call":
        this.#onCall(event.event);
        break;
      case "responses":
        for (const r of event.responses) this.#saveDelivered(r);
        break;
      case "cancelled":
      case "cancelled_settled":
      case "interrupted":
      case "joined":
      case "missed_told":
      case "user_turn":
      case "link":
        break;
      case "ended":
        this.#write(`The ER run ended (${event.ended}) after ${event.turns} model turn(s).`);
        break;
    }
  };

  #onCall(e: ExecutorEvent): void {
    if (e.type !== "settled") {
      const line = progressLine(e);
      if (line !== undefined && e.type !== "queued") this.#write(`  ${line}`);
      return;
    }
    this.results.set(e.callId, { tool: e.tool, result: e.result });
    if (e.tool === "move_to_image_point") {
      const move = this.#imagePointMove(e.callId, e.result);
      this.moves.push(move);
      const from = move.frame
        ? `in frame ${this.#shown(move.frame.path)}`
        : "(no frame of that camera was delivered before it)";
      const table = move.tablePoint
        ? ` -> table (${xyz(move.tablePoint)}) m -> tool tip to (${xyz(move.target ?? move.tablePoint)}) m`
        : "";
      this.#write(
        `  ${e.callId} move_to_image_point: point [${move.point.join(", ")}] of ${move.camera} ${from}${table}`,
      );
    }
    const line = progressLine(e);
    // A result with pictures is told when they reach the model (#saveDelivered), with where they were saved.
    if (line !== undefined && (e.result.images ?? []).length === 0) this.#write(`  ${line}`);
  }

  /**
   * The pictures exactly as the model got them: a response's image parts, in
   * the order of its result's image descriptions. Wherever the bridge runs
   * (in process or a serve this session is attached to), this is what was sent.
   */
  #saveDelivered(r: FunctionResponse): void {
    const parts = r.parts ?? [];
    if (parts.length === 0) return;
    const described = (resultOf(r.response).images ?? []).filter((image) => image.delivered_as !== undefined);
    parts.forEach((part, k) => {
      const image = described[k];
      if (!image) return;
      const f = this.#save(r.id, { ...image, mime_type: part.inlineData.mimeType, data: part.inlineData.data }, k);
      this.#write(
        `  ${r.id} ${r.name}: frame from ${f.camera} (${f.width}×${f.height}, captured ${f.capturedAt}${f.stale ? ", STALE" : ""}) sent to the model; saved to ${this.#shown(f.path)}`,
      );
    });
  }

  #save(callId: string, image: ResultImage & { readonly data: string }, k: number): SavedFrame {
    mkdirSync(this.#framesDir, { recursive: true });
    const n = String(this.frames.length + 1).padStart(2, "0");
    const path = join(
      this.#framesDir,
      `${n}-${callId}${k > 0 ? `-${k}` : ""}-${image.camera}.${EXTENSION[image.mime_type] ?? "img"}`,
    );
    writeFileSync(path, Buffer.from(image.data, "base64"));
    const frame: SavedFrame = {
      callId,
      camera: image.camera,
      path,
      width: image.width,
      height: image.height,
      capturedAt: image.captured_at,
      stale: image.stale,
    };
    this.frames.push(frame);
    return frame;
  }

  #imagePointMove(callId: string, result: CallResult): ImagePointMove {
    const args = this.#args.get(callId) ?? {};
    const camera = typeof args.camera === "string" ? args.camera : "?";
    const point =
      Array.isArray(args.point) && args.point.length === 2
        ? ([Number(args.point[0]), Number(args.point[1])] as const)
        : ([Number.NaN, Number.NaN] as const);
    const context = result.context ?? {};
    return {
      callId,
      camera,
      point,
      frame: [...this.frames].reverse().find((f) => f.camera === camera),
      tablePoint: vector(context.table_point),
      target: vector(context.target),
      result,
    };
  }
}

function vector(v: unknown): { x: number; y: number; z: number } | undefined {
  const o = v as { x?: unknown; y?: unknown; z?: unknown } | undefined;
  return typeof o?.x === "number" && typeof o.y === "number" && typeof o.z === "number"
    ? { x: o.x, y: o.y, z: o.z }
    : undefined;
}

function xyz(p: { readonly x: number; readonly y: number; readonly z: number }): string {
  return [p.x, p.y, p.z].map((v) => v.toFixed(3)).join(", ");
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > 240 ? `${flat.slice(0, 237)}...` : flat;
}
