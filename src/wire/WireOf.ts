import type * as z from "zod/mini";

type DeepReadonly<T> = T extends readonly (infer U)[]
  ? readonly DeepReadonly<U>[]
  : T extends object
    ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
    : T;

/** What an answer of schema S is, read-only all the way down: the server builds it once and sends it; nobody edits it. */
export type WireOf<S extends z.ZodMiniType> = DeepReadonly<z.output<S>>;
