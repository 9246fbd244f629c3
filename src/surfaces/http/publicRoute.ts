declare module "fastify" {
  interface FastifyContextConfig {
    /** Served without a bearer token. Only routes that reveal nothing about the arm. */
    public?: boolean;
  }
}

/** Route config for the few routes that need no token: /healthz and the console page itself. */
export const PUBLIC_ROUTE = { config: { public: true } } as const;
