import type { MotionRefusal } from "../motion/MotionPlan.js";
import type { EnvelopeContact } from "./EnvelopeContact.js";

/** What the envelope check says of a motion: certified (with what it cost), or a refusal with its contact. */
export type EnvelopeVerdict =
  | {
      readonly ok: true;
      /** FK evaluations the check spent (path points, over every box of in-flight progress). */
      readonly samples: number;
      /** Self-collision pair clearances it computed. */
      readonly pairChecks: number;
    }
  | (MotionRefusal & {
      /** The first offending link, where it would be (metres, workspace frame), and at which fraction of the path. */
      readonly link?: string;
      readonly point?: readonly [number, number, number];
      readonly at?: number;
      /** Everything about the contact, for a result and a 3D view: the link, the obstacle or other link, where, the clearance. */
      readonly contact?: EnvelopeContact;
    });
