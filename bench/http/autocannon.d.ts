/** The part of autocannon's programmatic API the benchmark uses (the package ships no types). */
declare module "autocannon" {
  export interface Histogram {
    readonly average: number;
    readonly p50: number;
    readonly p99: number;
    readonly total: number;
  }
  export interface Options {
    readonly url: string;
    readonly connections?: number;
    readonly pipelining?: number;
    readonly duration?: number;
    /** Seconds a request may take before it counts as an error. @defaultValue 10 */
    readonly timeout?: number;
    /** A fixed number of requests instead of a duration. */
    readonly amount?: number;
    readonly method?: string;
    readonly headers?: Record<string, string>;
    readonly body?: string;
  }
  export interface Result {
    readonly requests: Histogram;
    readonly latency: Histogram;
    readonly errors: number;
    readonly timeouts: number;
    readonly non2xx: number;
    readonly duration: number;
  }
  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}
