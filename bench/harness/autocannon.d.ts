/** The part of autocannon's programmatic API the bench uses (the package ships no types). */
declare module 'autocannon' {
  type Options = {
    url: string;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    duration?: number;
    connections?: number;
    requests?: { setupRequest?: (req: Record<string, unknown>) => Record<string, unknown> }[];
  };
  type Result = { non2xx: number; errors: number; timeouts: number; requests: { total: number } };
  type Instance = Promise<Result> & {
    on(event: 'response', fn: (client: unknown, statusCode: number, resBytes: number, responseTime: number) => void): void;
    stop(): void;
  };
  export default function autocannon(opts: Options): Instance;
}
