/** The options of managed auth (a leaf module: `types.ts` reads it). */

/** Options of managed auth (`createHookline({ oauth })`). */
export interface OAuthOptions {
  /**
   * Origins besides the server's own that a connect flow may return to (`return_url`) and post its
   * result to (`opener_origin`), such as the embedding app's front end. A connect token adds its own.
   */
  allowedOrigins?: string[];
  /** Refresh an access token this long before it expires, ms (default 120,000). */
  refreshSkewMs?: number;
  /**
   * How often a started engine refreshes the tokens due (ahead of their use), ms (default 60,000);
   * `false`: only when used.
   */
  refreshIntervalMs?: number | false;
}
