import type { RecordedMessage, Recording } from "../../../recording/readRecording.js";

/** One episode of a dataset: a run of calls from one model session, sampled at the dataset's rate. */
export interface Episode {
  readonly task: string;
  readonly startMs: number;
  readonly endMs: number;
  /** Joint names, in the order the state and action vectors hold them. */
  readonly names: readonly string[];
  readonly frames: readonly EpisodeFrame[];
}

export interface EpisodeFrame {
  readonly ms: number;
  readonly state: readonly number[];
  readonly action: readonly number[];
  /** Per camera, the newest frame at or before `ms` (else the first after it): JPEG or PNG bytes. */
  readonly images: ReadonlyMap<string, Buffer>;
}

interface Client {
  readonly kind?: string;
  readonly name?: string;
  readonly session?: string;
}

interface Span {
  readonly key: string;
  readonly client: Client;
  startMs: number;
  endMs: number;
}

/**
 * The episodes of some recordings: one per run of consecutive calls from
 * the same client session (a model session, an MCP session, a person at the
 * CLI), from its first call to the last one's answer, sampled every 1/fps s.
 * `observation.state` is the joints as the arm reported them then;
 * `action` the target of the motion under way then (a joint it does not
 * move keeps its state), as LeRobot's SO-101 and Koch recordings pair the
 * measured position with the goal position sent to the motors.
 */
export function episodesOf(recordings: readonly Recording[], fps: number): Episode[] {
  const messages = recordings.flatMap((r) => r.messages).sort((a, b) => a.ms - b.ms);
  const joints = messages.filter((m) => m.topic === "/joint_states");
  if (joints.length === 0) return [];
  const names = (joints[0]?.data.joints as { name: string }[]).map((j) => j.name);
  const targets = motionTargets(messages);
  const cameras = new Map<string, RecordedMessage[]>();
  for (const m of messages)
    if (m.topic.startsWith("/camera/")) {
      const name = m.topic.slice("/camera/".length);
      cameras.set(name, [...(cameras.get(name) ?? []), m]);
    }
  return spansOf(messages).map((span) => {
    const frames: EpisodeFrame[] = [];
    const count = Math.floor(((span.endMs - span.startMs) * fps) / 1000) + 1;
    for (let i = 0; i < count; i++) {
      const ms = span.startMs + (i * 1000) / fps;
      const state = positionsAt(joints, ms, names);
      const target = targets.find((t) => t.fromMs <= ms && ms < t.toMs);
      const action = names.map((n, k) => target?.targets[n] ?? state[k] ?? 0);
      const images = new Map<string, Buffer>();
      for (const [camera, shots] of cameras) {
        const shot = newestAt(shots, ms);
        if (shot) images.set(camera, Buffer.from(String(shot.data.data), "base64"));
      }
      frames.push({ ms, state, action, images });
    }
    return { task: taskOf(span.client), startMs: span.startMs, endMs: span.endMs, names, frames };
  });
}

function spansOf(messages: readonly RecordedMessage[]): Span[] {
  const spans: Span[] = [];
  for (const m of messages) {
    if (m.topic !== "/armbridge/calls") continue;
    const client = (m.data.client ?? {}) as Client;
    const key = `${client.kind ?? ""}\u0000${client.name ?? ""}\u0000${client.session ?? ""}`;
    const last = spans.at(-1);
    if (last?.key === key) last.endMs = Math.max(last.endMs, m.ms);
    else spans.push({ key, client, startMs: m.ms, endMs: m.ms });
  }
  return spans;
}

function taskOf(client: Client): string {
  const who = client.name ?? client.kind ?? "an unnamed caller";
  return client.session ? `${who} (session ${client.session})` : who;
}

/** Each motion's targets, from its intent to its settlement on /armbridge/actions. */
function motionTargets(
  messages: readonly RecordedMessage[],
): { fromMs: number; toMs: number; targets: Record<string, number> }[] {
  const open = new Map<string, { fromMs: number; targets: Record<string, number> }>();
  const out: { fromMs: number; toMs: number; targets: Record<string, number> }[] = [];
  for (const m of messages) {
    if (m.topic !== "/armbridge/actions") continue;
    const id = String(m.data.action_id);
    const command = m.data.command as { targets?: Record<string, number> } | undefined;
    if (m.data.kind === "intent" && command?.targets) open.set(id, { fromMs: m.ms, targets: command.targets });
    if (m.data.kind === "settlement") {
      const o = open.get(id);
      if (o) out.push({ ...o, toMs: m.ms });
      open.delete(id);
    }
  }
  for (const o of open.values()) out.push({ ...o, toMs: Infinity });
  return out;
}

function newestAt(sorted: readonly RecordedMessage[], ms: number): RecordedMessage | undefined {
  let lo = 0,
    hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((sorted[mid]?.ms ?? Infinity) <= ms) lo = mid + 1;
    else hi = mid;
  }
  return sorted[lo - 1] ?? sorted[0];
}

function positionsAt(joints: readonly RecordedMessage[], ms: number, names: readonly string[]): number[] {
  const m = newestAt(joints, ms);
  const axes = (m?.data.joints ?? []) as { name: string; position: number }[];
  return names.map((n) => axes.find((a) => a.name === n)?.position ?? 0);
}
