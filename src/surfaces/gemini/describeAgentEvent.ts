import type { AgentEnd, AgentEvent } from "./AgentEvent.js";
import type { MissCause } from "./UndeliveredMotions.js";
import { describeModelLinkEvent } from "./ModelLinkEvent.js";
import { progressLine } from "./progressLine.js";

/** The progress line for an agent event. */
export function describeAgentEvent(event: AgentEvent): string | undefined {
  switch (event.type) {
    case "model_turn": {
      const what =
        event.calls.length === 0
          ? `answers: ${oneLine(event.text)}`
          : `calls ${event.calls.map((c) => `${c.name}#${c.id}`).join(", ")}`;
      return `model turn ${event.turn}: ${what}${event.note ? ` — ${event.note}` : ""}`;
    }
    case "call":
      return progressLine(event.event);
    case "responses": {
      // Said so a listener sees what reached the model (the pictures exist only here when the bridge is remote).
      const pictures = event.responses.reduce((n, r) => n + (r.parts?.length ?? 0), 0);
      return `turn ${event.turn}: ${event.responses.length} response(s) sent to the model${pictures > 0 ? `, with ${pictures} picture(s)` : ""}`;
    }
    case "cancelled":
      return `server cancelled ${event.callIds.join(", ")}: our wait ends; the motion is not stopped or re-sent, and is settled by observation`;
    case "interrupted":
      return `a turn interrupted ${event.callIds.join(", ")}: our wait ends; the motion is not stopped or re-sent, and the model will be told its outcome`;
    case "cancelled_settled": {
      const r = "output" in event.response.response ? event.response.response.output : event.response.response.error;
      return `${event.response.id} ${event.response.name}: ${MISSED_WORDS[event.cause]} call settled ${r.status} by ${r.settled_by} (no response sent; the model hears of it by a join or a note)`;
    }
    case "joined":
      return `${event.call.id} ${event.call.name} repeats ${event.joinedCallId}, whose result never reached the model: joined, not run again`;
    case "missed_told":
      return `told the model the outcome of ${event.callIds.join(", ")}, which it never received`;
    case "user_turn":
      return `user turn: ${oneLine(event.text)}`;
    case "link":
      return describeModelLinkEvent(event.event);
    case "ended":
      return `run ended: ${endWords(event.ended)} after ${event.turns} model turn(s)`;
  }
}

const MISSED_WORDS: Readonly<Record<MissCause, string>> = {
  cancelled: "cancelled",
  interrupted: "interrupted",
  connection_lost: "undelivered (connection lost)",
};

function endWords(ended: AgentEnd): string {
  switch (ended) {
    case "answered":
      return "the model answered";
    case "max_turns":
      return "max turns reached";
    case "deadline":
      return "run deadline reached";
  }
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > 200 ? `${flat.slice(0, 197)}...` : flat;
}
