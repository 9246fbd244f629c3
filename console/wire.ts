/*
 * The shapes the console reads from the HTTP API: the server's own wire
 * contract (src/wire/), whose client parses every answer and event with
 * these shapes' schemas, so the two sides cannot drift apart; the browser
 * bundle carries no other server code (the lint's floors check refuses any
 * import from src/ outside src/wire/). Every value is still treated as
 * untrusted text when it reaches the page (dom.ts).
 */
import type { ActionView, ApiErrorBody as ApiErrorAnswer, ArmStateView } from "../src/wire/index.js";

export type {
  ActionView,
  ApprovalView,
  ArmAxisView as ArmAxis,
  ArmDescriptionView as ArmDescription,
  CamerasList,
  CardFrameView,
  CardFramesList,
  CameraView,
  ClientView,
  ClientsList,
  InFlightView,
  ConfirmOption,
  EnvelopeDescriptionView,
  EnvelopeStateView,
  ExecutorEventView,
  HaltAnswer,
  HaltReleaseAnswer,
  HaltView,
  LinkView,
  PresenceView,
  PlacedVolumesView,
  SecurityReport,
  ShapeView,
  ServoAlertView,
  ServoHealthView,
  TablePointView,
} from "../src/wire/index.js";

/** GET /v1/state and the SSE `state` event. */
export type StateView = ArmStateView;

/** A ledger row's state (the arm's own record of an action has other states). */
export type ActionRowState = ActionView["state"];

/** Every ledger state, in the order the history filter offers them; the record type makes a missing one a type error. */
const STATE_ORDER: Readonly<Record<ActionRowState, number>> = {
  started: 0,
  done: 1,
  failed: 2,
  unknown: 3,
  confirmed_done: 4,
  confirmed_partial: 5,
  confirmed_not_done: 6,
  halted: 7,
};
export const ACTION_STATES: readonly ActionRowState[] = (Object.keys(STATE_ORDER) as ActionRowState[]).sort(
  (a, b) => STATE_ORDER[a] - STATE_ORDER[b],
);

export type Pose = Readonly<Record<string, number>>;

/** The `error` of every non-2xx answer. */
export type ApiErrorBody = ApiErrorAnswer["error"];
