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
    /** A run under way: a promise of its result that also tells each response as it comes. */
    interface Instance extends Promise<Result> {
      /** `responseTime`: ms since the request was written, as a float (hrtime). */
      on(event: 'response', listener: (client: unknown, statusCode: number, bytes: number, responseTime: number) => void): this;
    }
  }
  function autocannon(opts: autocannon.Options): autocannon.Instance;
  export default autocannon;
}
