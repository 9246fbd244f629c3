import type { Bridge } from "../../bridge/Bridge.js";

/** The part of a Bridge an agent run uses. */
export type AgentBridge = Pick<Bridge, "executor" | "registry" | "onEvent">;
