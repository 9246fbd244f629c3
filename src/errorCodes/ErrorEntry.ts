/** One error code's entry in the registry (src/errors.ts). */
export interface ErrorEntry {
  /** What a route answers with when it throws this code. */
  readonly httpStatus: number;
  /** The message template: `{name}` is replaced by the detail of that name. */
  readonly message: string;
  /** What docs/errors.md says beyond the message: where the code appears, what to do. */
  readonly docs?: string;
}
