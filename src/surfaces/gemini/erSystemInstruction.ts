import { AGENT_SYSTEM_INSTRUCTION } from "./systemInstruction.js";

/**
 * The system instruction for a Gemini Robotics-ER session that works from
 * camera images: the arm's result rules (AGENT_SYSTEM_INSTRUCTION) plus the
 * conventions of Google's robotics docs, so a real ER model and the replayed
 * one speak the same language:
 * - points are `[y, x]`, normalised to 0–1000 of the image's height and
 *   width, and lists of things seen are JSON `[{"point": [y, x], "label":
 *   "<name>"}]` (https://ai.google.dev/gemini-api/docs/robotics-spatial,
 *   "Point to objects");
 * - the robot is driven by function calls that move above a point and then
 *   set the gripper, one step at a time, reading each result
 *   (https://ai.google.dev/gemini-api/docs/generate-content/robotics-orchestration,
 *   the custom robot API's `move(x, y, high)` / `setGripperState(opened)`).
 *   Here the point goes to `move_to_image_point` as the model read it from
 *   the image; the bridge maps it to the table through the camera's
 *   calibration, so the model never converts coordinates itself.
 */
export const ER_SYSTEM_INSTRUCTION = [
  AGENT_SYSTEM_INSTRUCTION,
  "You see the workspace through cameras: call get_camera_image with a camera's name to get its latest picture (a top-down view of the table for the camera named overhead); look again after a motion to check it.",
  "Points in an image are [y, x], each normalised to 0-1000: y from the top edge down, x from the left edge to the right.",
  'When you list what you see, answer in JSON: [{"point": [y, x], "label": "<name>"}].',
  "To move the gripper above something you see, call move_to_image_point with the camera, the point exactly as you read it from that camera's latest image, and height_m, the height above the table in metres; the bridge maps the point to the table through the camera's calibration and refuses targets outside the arm's safety envelope.",
  "Open the gripper before you reach for an object and close it once you are above it; do one step at a time and read each result before the next.",
].join(" ");

/** What a real ER model is asked to do in `npm start` with GEMINI_API_KEY. */
export const ER_DEMO_INSTRUCTION =
  "Look at the table through the overhead camera and list the blocks you see as JSON points. " +
  "Then pick the red block: open the gripper, move the gripper to 0.1 m above the red block's centre, close the gripper, " +
  "and look again to check. Finish with one sentence saying where the gripper is.";
