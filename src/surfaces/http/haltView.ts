import type { HaltRow } from "../../bridge/BridgePort.js";
import { whoHalted } from "../../bridge/portVocabulary.js";
import type { HaltView } from "../../wire/HaltView.js";

export function haltView(h: HaltRow): HaltView {
  return {
    halt_id: h.haltId,
    halted_at: h.haltedAt,
    source: h.source,
    operator: h.operator ?? null,
    call_id: h.callId ?? null,
    client: h.client ?? null,
    axes: h.axes ?? null,
    note: h.note ?? null,
    confirmed: h.confirmed ?? null,
    detail: h.detail ?? null,
    pose: h.pose ?? null,
    answered_at: h.answeredAt ?? null,
    released_at: h.releasedAt ?? null,
    released_by: h.releasedBy ?? null,
    release_note: h.releaseNote ?? null,
    who: whoHalted(h),
  };
}
