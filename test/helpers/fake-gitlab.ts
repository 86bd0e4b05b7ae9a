/**
 * A GitLab on 127.0.0.1 serving generic packages (the endpoints the GitLab source uses), recording
 * every request so a test can count them.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type Hooks = { after: (fn: () => Promise<void> | void) => void };

/** The project every package is in, URL-escaped as a package URL writes it. */
export const SLUG = 'group%2Fproject';

export interface Package {
  name: string;
  version: string;
  package_type?: string;
  status?: string;
  files: Record<string, Buffer | string>;
}

export interface Recorded {
  /** Raw path and query as sent (escapes kept). */
  url: string;
  authorization?: string;
  status: number;
}

/**
 * A GitLab on 127.0.0.1 with the two endpoints the source uses: generic package file downloads
 * (with ETag / If-None-Match) and the project packages list (paginated with full-URL Link
 * headers, as GitLab sends them). With `token`, anything else than `Bearer <token>` gets 401.
 */
export class FakeGitLab {
  url = '';
  host = '';
  readonly requests: Recorded[] = [];
  /** Overrides the next-page link (to test where it may point). */
  nextLinkOrigin?: string;
  private readonly server = http.createServer((req, res) => this.handle(req, res));

  constructor(
    private readonly packages: Package[],
    private readonly options: { token?: string; pageSize?: number } = {},
  ) {}

  static async start(t: Hooks, packages: Package[], options: { token?: string; pageSize?: number } = {}): Promise<FakeGitLab> {
    const fake = new FakeGitLab(packages, options);
    await new Promise<void>((resolve) => fake.server.listen(0, '127.0.0.1', () => resolve()));
    fake.host = `127.0.0.1:${(fake.server.address() as AddressInfo).port}`;
    fake.url = `http://${fake.host}`;
    t.after(() => {
      fake.server.closeAllConnections();
      return new Promise<void>((resolve) => fake.server.close(() => resolve()));
    });
    return fake;
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const record: Recorded = { url: req.url ?? '', authorization: req.headers.authorization, status: 200 };
    this.requests.push(record);
    const reply = (status: number, body: string | Buffer, headers: Record<string, string> = {}) => {
      record.status = status;
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(body);
    };
    if (this.options.token && req.headers.authorization !== `Bearer ${this.options.token}`)
      return reply(401, '{"message":"401 Unauthorized"}');

    const [pathname, query = ''] = record.url.split('?');
    const file = new RegExp(`^/api/v4/projects/${SLUG}/packages/generic/([^/]+)/([^/]+)/([^/]+)$`).exec(pathname);
    if (file) {
      const found = this.packages.find(
        (entry) => entry.name === decodeURIComponent(file[1]) && entry.version === decodeURIComponent(file[2]),
      );
      const content = found?.files[decodeURIComponent(file[3])];
      if (content === undefined) return reply(404, '{"message":"404 Not Found"}');
      const etag = `"${createHash('sha256').update(content).digest('hex').slice(0, 16)}"`;
      if (req.headers['if-none-match'] === etag) return reply(304, '', { etag });
      return reply(200, Buffer.from(content), { 'content-type': 'application/octet-stream', etag });
    }
    if (pathname === `/api/v4/projects/${SLUG}/packages`) {
      const params = new URLSearchParams(query);
      const matching = this.packages.filter(
        (entry) =>
          entry.name.includes(params.get('package_name') ?? '') &&
          (params.get('package_type') === null || (entry.package_type ?? 'generic') === params.get('package_type')),
      );
      const perPage = this.options.pageSize ?? Number(params.get('per_page') ?? 20);
      const page = Number(params.get('page') ?? 1);
      const slice = matching.slice((page - 1) * perPage, page * perPage);
      const headers: Record<string, string> = {};
      if (page * perPage < matching.length) {
        const next = new URL(`${this.nextLinkOrigin ?? this.url}${pathname}`);
        params.set('page', String(page + 1));
        next.search = params.toString();
        headers.link = `<${next.href}>; rel="next", <${this.url}${pathname}?page=1>; rel="first"`;
      }
      return reply(200, JSON.stringify(slice.map(({ files: _files, ...entry }) => ({ id: 1, ...entry }))), headers);
    }
    reply(404, '{"message":"404 Not Found"}');
  }
}
