import { CLIENT_KINDS } from "./vocabulary.js";
import * as z from "zod/mini";
import type { WireOf } from "./WireOf.js";

/** Who sent a call (src/ledger/CallClient.ts): the surface it came through, and what the sender says it is. */
export const CLIENT_VIEW = z.strictObject({
  kind: z.enum(CLIENT_KINDS),
  name: z.string(),
  session: z.optional(z.string()),
});
export type ClientView = WireOf<typeof CLIENT_VIEW>;

/** GET /v1/clients: every client the ledger has recorded a motion of, the most recent first (the history's filter). */
export const CLIENTS_LIST = z.strictObject({
  clients: z.array(
    z.strictObject({
      client: CLIENT_VIEW,
      /** Motions recorded for it. */
      actions: z.number(),
      first_at: z.number(),
      last_at: z.number(),
    }),
  ),
});
export type ClientsList = WireOf<typeof CLIENTS_LIST>;
