/** The fields of one FunctionResponse of POST /v1/calls that the CLI prints for a person. */
export interface CallAnswerLine {
  readonly id: string;
  readonly name: string;
  readonly response: { readonly output?: CallResultLine | undefined; readonly error?: CallResultLine | undefined };
}

interface CallResultLine {
  readonly status: string;
  readonly message: string;
  readonly action_id?: string | undefined;
  readonly pose?: Readonly<Record<string, number>> | undefined;
  readonly error_code?: string | undefined;
  readonly issues?: readonly { readonly path: string; readonly code?: string; readonly message: string }[];
}
