import { describeError } from "./api.js";
import type { ArmbridgeClient } from "../src/wire/client/ArmbridgeClient.js";
import { ArmScene, type LastRefusal, type PlacedVolumes } from "./ArmScene.js";
import { ArmView3D } from "./ArmView3D.js";
import { el } from "./dom.js";
import { clockTime } from "./format.js";
import type { ArmDescription, EnvelopeDescriptionView, Pose, StateView } from "./wire.js";

type GhostLook = "target" | "requested";

interface Ghost {
  readonly view: ArmView3D;
  /** Until the card is on the page it is not pruned. */
  seen: boolean;
}

const GHOST_WORDS: Readonly<Record<GhostLook, string>> = {
  requested: "translucent purple: where this call would take it",
  target: "translucent orange: the target it was asked to reach",
};

/**
 * The arm in 3D, built from what the safety envelope is made of (GET /v1/arm
 * `envelope`: the link volumes of the arm's URDF or its config, the keep_in
 * box, the floor, the keep-out zones): the arm panel's live view, and a ghost
 * of a call's target on each approval and unknown card (GET /v1/arm/volumes
 * places the same volumes there). The live volumes come with every state
 * (GET /v1/state and the event stream, `envelope.volumes`); views are drawn
 * again only when those, their staleness or the newest refusal change. A
 * card's view is disposed once the card has left the page.
 */
export class ArmViews {
  readonly #api: ArmbridgeClient;
  readonly #box: HTMLElement;
  #envelope: EnvelopeDescriptionView | undefined;
  #axes: ArmDescription["axes"] = [];
  #main: ArmView3D | undefined;
  readonly #ghosts = new Set<Ghost>();
  #state: StateView | undefined;
  #live: PlacedVolumes | null = null;
  #stale = true;
  #refusal: LastRefusal | null = null;
  #key = "";

  constructor(api: ArmbridgeClient, box: HTMLElement) {
    this.#api = api;
    this.#box = box;
  }

  /** The arm's description arrived (again): the panel's view is made for it. */
  setArm(arm: ArmDescription): void {
    this.#main?.dispose();
    this.#main = undefined;
    this.#axes = arm.axes;
    this.#envelope = arm.envelope ?? undefined;
    if (!this.#envelope) {
      this.#box.replaceChildren(
        el("p", {
          cls: "arm3d-off",
          text: "3D view unavailable: this arm's config names no URDF, so the bridge has no link volumes to draw (docs/kinematics.md).",
        }),
      );
      return;
    }
    const main = new ArmView3D(this.#scene(), {
      cls: "arm3d-live",
      label: `the arm ${arm.name} in 3D, where it is now`,
    });
    this.#main = main;
    this.#box.replaceChildren(main.root);
    this.#key = "";
    this.#redraw();
  }

  /** Every render of the console: redraws only when the arm's volumes, their staleness or the newest refusal changed. */
  update(state: StateView | undefined, stale: boolean): void {
    this.#prune();
    if (state === this.#state && stale === this.#stale) return;
    this.#state = state;
    const live = state?.envelope.volumes ?? null;
    const refusal = state?.envelope.last_refusal ?? null;
    const key = `${stale}|${refusal?.at_ms ?? ""}|${JSON.stringify(live)}`;
    this.#stale = stale;
    if (key === this.#key) return;
    this.#key = key;
    this.#live = live;
    this.#refusal = refusal;
    this.#redraw();
  }

  /**
   * A card's picture: the arm now, and translucent, the pose `targets` would
   * take it to (joints the call does not move stay where they are). Nothing
   * when the call moves no joint of the chain (a gripper only) or the arm has
   * no volumes to draw.
   */
  ghost(targets: Pose, look: GhostLook): HTMLElement {
    const joints = Object.keys(targets).filter((n) => this.#axes.some((a) => a.name === n && a.kind === "joint"));
    if (!this.#envelope || joints.length === 0) return el("div", { cls: "arm3d-none", attrs: { hidden: "" } });
    const view = new ArmView3D(this.#scene(), {
      cls: `arm3d-ghost ghost-${look}`,
      label: `the arm in 3D now, and ${GHOST_WORDS[look]}`,
    });
    view.root.setAttribute("data-ghost", look);
    const ghost: Ghost = { view, seen: false };
    this.#ghosts.add(ghost);
    this.#paint(view);
    view.setCaption(`In 3D \u2014 the arm now (blue), and ${GHOST_WORDS[look]} (working it out\u2026)`);
    const query = Object.fromEntries(joints.map((n) => [n, String(targets[n])]));
    this.#api
      .call("armVolumes", { query })
      .then((placed) => {
        view.arm.setGhost(placed.volumes, look);
        view.root.dataset.ghostPlaced = "true";
        view.setCaption(
          `In 3D \u2014 the arm now (blue), and ${GHOST_WORDS[look]}${placed.from_status.length ? `; ${placed.from_status.length} joint${placed.from_status.length === 1 ? "" : "s"} it does not move drawn where ${placed.from_status.length === 1 ? "it is" : "they are"}` : ""}.`,
        );
        view.invalidate();
      })
      .catch((error: unknown) =>
        view.setCaption(`In 3D \u2014 the arm now (blue); its target could not be placed: ${describeError(error)}`),
      );
    return view.root;
  }

  #scene(): ArmScene {
    // Only called with an envelope.
    return new ArmScene(this.#envelope!, this.#state?.envelope.volumes ?? []);
  }

  #redraw(): void {
    if (this.#main) {
      this.#paint(this.#main);
      this.#main.setCaption(this.#mainCaption());
    }
    for (const g of this.#ghosts) this.#paint(g.view);
  }

  #paint(view: ArmView3D): void {
    view.arm.setLive(this.#live, this.#stale ? "stale" : "live");
    view.arm.setRefusal(this.#refusal);
    view.root.classList.toggle("stale", this.#stale);
    view.invalidate();
  }

  #mainCaption(): string {
    const parts = [this.#stale ? "STALE: the last pose seen, greyed \u2014 not the arm now" : "The arm now (blue)"];
    const e = this.#envelope;
    if (e?.keep_in) parts.push("keep_in box (green)");
    if (e?.floor_z !== null && e?.floor_z !== undefined) parts.push(`floor at z = ${e.floor_z} m`);
    if (e?.keep_out.length) parts.push(`keep-out zones (red): ${e.keep_out.map((z) => z.name).join(", ")}`);
    const r = this.#refusal;
    if (r) {
      const clearance = `${(r.clearance_m * 1000).toFixed(0)} mm`;
      parts.push(
        `last refusal (red outline): ${r.tool} call ${r.call_id} at ${clockTime(r.at_ms)} \u2014 ${r.link} against ${r.obstacle.kind} ${r.obstacle.name}, clearance ${clearance}`,
      );
    }
    return `${parts.join(" \u00b7 ")}. Drag to turn.`;
  }

  /** Cards that left the page take their views with them. */
  #prune(): void {
    for (const g of this.#ghosts) {
      if (g.view.root.isConnected) g.seen = true;
      else if (g.seen) {
        g.view.dispose();
        this.#ghosts.delete(g);
      }
    }
  }
}
