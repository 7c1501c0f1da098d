// autocannon ships no types; this is the part of its API the benchmarks use.
declare module 'autocannon' {
  namespace autocannon {
    interface Options {
      url: string;
      method?: string;
      headers?: Record<string, string>;
      body?: string;
      connections?: number;
      duration?: number;
      /** Stop after this many requests instead of after `duration`. */
      amount?: number;
      /** Seconds before a request counts as timed out (10 by default). */
      timeout?: number;
      /** Per-request rewriting; `setupRequest` answers the request to send. */
      requests?: { setupRequest?: (req: { path?: string }) => { path?: string } }[];
    }
    interface Result {
      requests: { average: number };
      latency: Record<string, number>;
      errors: number;
      non2xx: number;
    }
  }
  function autocannon(opts: autocannon.Options): Promise<autocannon.Result>;
  export default autocannon;
}
