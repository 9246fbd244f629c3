declare module "fastify" {
  interface FastifyContextConfig {
    /** Served without a bearer token. Only routes that reveal nothing about the arm. */
    public?: boolean;
    /** Served to the operator token only (the console's), never to the API token agents and MCP clients hold. */
    operator?: boolean;
  }
}

/** Route config for the few routes that need no token: /healthz and the console page itself. */
export const PUBLIC_ROUTE = { config: { public: true } } as const;

/** Route config for what only a person may do: say they are at the arm, decide an approval. */
export const OPERATOR_ROUTE = { config: { operator: true } } as const;
