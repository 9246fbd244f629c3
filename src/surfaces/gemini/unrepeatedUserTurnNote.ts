/**
 * What a resumed session is told, instead of the user's words again, when
 * a user turn sent on the lost connection may be missing from the state it
 * resumed (no resumable handle was known to hold it). The Gemini Developer
 * API does not say which client messages a handle holds
 * (`lastConsumedClientMessageIndex` comes only with `transparent`, which
 * @google/genai allows on Vertex AI alone), and a handle issued after the
 * server read the turn looks the same to us as one issued before. Sending
 * the turn again to a session that has it asks for the work twice ("pick up
 * the block" twice); a model that lacks it is told so here and can say it
 * has nothing to do, which moves nothing.
 */
export const UNREPEATED_USER_TURN_NOTE =
  "[armbridge] The connection to the model was lost and this session was resumed from a saved point. " +
  "The user's last message before the loss may or may not be part of it; it is not sent again, so that nothing is done twice. " +
  "If you have the user's instruction, go on from where the arm is now (what you already did stays done). " +
  "If you have no instruction from the user, say so and do not move the arm.";
