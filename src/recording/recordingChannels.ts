import { CompressedImage, FrameTransforms, JointStates, Log, SceneUpdate } from "@foxglove/schemas/jsonschema.js";

/**
 * Every channel a recording holds: its topic, the schema's name and the
 * schema itself. Foxglove's own (JSON Schema encoding of @foxglove/schemas)
 * where one exists, so its 3D, image, plot and log panels read them as they
 * are; a JSON Schema of ours for armbridge's own records. Every message is
 * JSON (MCAP message encoding `json`, schema encoding `jsonschema`).
 */
export interface RecordingChannel {
  readonly topic: string;
  readonly schemaName: string;
  readonly schema: object;
}

const time = {
  type: "object",
  properties: { sec: { type: "integer", minimum: 0 }, nsec: { type: "integer", minimum: 0, maximum: 999_999_999 } },
  required: ["sec", "nsec"],
} as const;

const client = {
  type: "object",
  properties: { kind: { type: "string" }, name: { type: "string" }, session: { type: "string" } },
  description: "Who sent the call (an agent, an MCP client, the CLI, …), and its session when it named one.",
} as const;

function ours(title: string, description: string, properties: Record<string, object>, required: string[]): object {
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    title,
    description,
    type: "object",
    properties: { timestamp: time, kind: { type: "string" }, ...properties },
    required: ["timestamp", "kind", ...required],
  };
}

export const CALLS_SCHEMA = ours(
  "armbridge.Call",
  "A call's progress through the bridge: queued, started, paced, timed_out, settled (with its result).",
  {
    call_id: { type: "string" },
    tool: { type: "string" },
    action_id: { type: "string" },
    resources: { type: "array", items: { type: "string" } },
    client,
    result: { type: "object", description: "The call's result as the model was answered (settled only)." },
    duration_ms: { type: "number" },
  },
  ["call_id", "tool"],
);

export const ACTIONS_SCHEMA = ours(
  "armbridge.Action",
  "A motion's ledger story: intent (durable before send, with the command), start, settlement (state, who settled it, the evidence).",
  {
    action_id: { type: "string" },
    call_id: { type: "string" },
    tool: { type: "string" },
    state: { type: "string" },
    command: { type: "object" },
    args: {},
    settled_by: { type: "string" },
    evidence: { type: "object" },
    message: { type: "string" },
    client,
  },
  ["action_id"],
);

export const OPERATOR_SCHEMA = ours(
  "armbridge.Operator",
  "What a person did or was asked: approval requested / resolved, confirmations, HALT, release, presence.",
  {
    operator: { type: "string" },
    call_id: { type: "string" },
    action_id: { type: "string" },
    detail: { type: "object" },
  },
  [],
);

export const MODEL_SCHEMA = ours(
  "armbridge.ModelTurn",
  "The attached agent's model turns and text, when the agent allows them to be recorded.",
  { session: { type: "string" }, role: { type: "string" }, text: { type: "string" } },
  [],
);

/** Our channels, then Foxglove's; camera channels are made per camera (cameraChannel). */
export const RECORDING_CHANNELS = {
  joints: { topic: "/joint_states", schemaName: "foxglove.JointStates", schema: JointStates },
  tf: { topic: "/tf", schemaName: "foxglove.FrameTransforms", schema: FrameTransforms },
  scene: { topic: "/scene", schemaName: "foxglove.SceneUpdate", schema: SceneUpdate },
  calls: { topic: "/armbridge/calls", schemaName: "armbridge.Call", schema: CALLS_SCHEMA },
  actions: { topic: "/armbridge/actions", schemaName: "armbridge.Action", schema: ACTIONS_SCHEMA },
  operator: { topic: "/armbridge/operator", schemaName: "armbridge.Operator", schema: OPERATOR_SCHEMA },
  model: { topic: "/armbridge/model", schemaName: "armbridge.ModelTurn", schema: MODEL_SCHEMA },
  log: { topic: "/log", schemaName: "foxglove.Log", schema: Log },
} as const satisfies Record<string, RecordingChannel>;

export type ChannelKey = keyof typeof RECORDING_CHANNELS;

export function cameraChannel(camera: string): RecordingChannel {
  return { topic: `/camera/${camera}`, schemaName: "foxglove.CompressedImage", schema: CompressedImage };
}

/** A foxglove time from epoch milliseconds. */
export function timeOf(ms: number): { sec: number; nsec: number } {
  const sec = Math.floor(ms / 1000);
  return { sec, nsec: Math.round((ms - sec * 1000) * 1e6) % 1_000_000_000 };
}

/** foxglove.Log's levels (LogLevel enum: UNKNOWN 0, DEBUG 1, INFO 2, WARNING 3, ERROR 4, FATAL 5). */
export const LOG_LEVEL = { info: 2, warning: 3, error: 4 } as const;
