/**
 * A server on 127.0.0.1 that records every request and answers from a route table; a route may
 * echo the request's headers back, as a misbehaving server or an HTML proxy page would.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Recorded {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
}

export type Route = (request: Recorded) => { status: number; body: string | Buffer; headers?: Record<string, string> } | undefined;

/** The request's headers as text, the way a proxy's error page shows them. */
export function echoHeaders(request: Recorded): string {
  return Object.entries(request.headers)
    .map(([name, value]) => `${name}: ${String(value)}`)
    .join('\n');
}

export class EchoServer {
  readonly requests: Recorded[] = [];
  private constructor(
    private readonly server: http.Server,
    readonly origin: string,
  ) {}

  static async start(route: Route): Promise<EchoServer> {
    // oxlint-disable-next-line prefer-const -- assigned once the server listens; the handler reads it later
    let self: EchoServer | undefined;
    const server = http.createServer((req, res) => {
      const recorded: Recorded = { method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers };
      self!.requests.push(recorded);
      const answer = route(recorded) ?? { status: 404, body: 'not found' };
      res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
      res.end(answer.body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    self = new EchoServer(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return self;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
