/**
 * The HTTP API's wire contract: one zod schema per shape the API sends, and
 * the types derived from them. The server builds its answers as these types;
 * the console (console/wire.ts) imports the types only; test/surfaces/http/
 * wireContract.test.ts parses live answers with the schemas, so a field the
 * server adds, drops or renames without this contract fails there.
 */
export * from "./ActionView.js";
export * from "./ApiErrorBody.js";
export * from "./ApprovalView.js";
export * from "./ArmDescriptionView.js";
export * from "./ArmStateView.js";
export * from "./CallResultView.js";
export * from "./CameraView.js";
export * from "./ClientView.js";
export * from "./EnvelopeView.js";
export * from "./ExecutorEventView.js";
export * from "./HaltView.js";
export * from "./PresenceView.js";
export * from "./SecurityReport.js";
export * from "./ServoHealthView.js";
export type { WireOf } from "./WireOf.js";
