/**
 * Most calls in one batch: a model turn with more calls than this is a bug or an attack. The executor
 * refuses more; POST /v1/calls refuses them up front, one clear 400 instead of 64+ rejections.
 */
export const MAX_BATCH = 64;

/** Longer call ids are refused: ids are keys, stored and echoed on every surface, not payloads. */
export const MAX_CALL_ID_LENGTH = 128;
