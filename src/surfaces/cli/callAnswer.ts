/** The fields of one FunctionResponse of POST /v1/calls that the CLI prints for a person. */
export interface CallAnswerLine {
  readonly id: string;
  readonly name: string;
  readonly response: { readonly output?: CallResultLine; readonly error?: CallResultLine };
}

interface CallResultLine {
  readonly status: string;
  readonly message: string;
  readonly action_id?: string;
  readonly pose?: Readonly<Record<string, number>>;
  readonly error_code?: string;
  readonly issues?: readonly { readonly path: string; readonly code?: string; readonly message: string }[];
}
