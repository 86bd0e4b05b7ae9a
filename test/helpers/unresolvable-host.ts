/**
 * Preloaded into a child CLI process (`node --import …/unresolvable-host.js`): the host names in
 * $UNRESOLVABLE_HOSTS (comma-separated) fail to resolve exactly as getaddrinfo fails without DNS
 * (ENOTFOUND from dns.lookup, which Node's net, and so fetch, calls for every connection). A test
 * can so give the CLI a DNS failure on this machine, without asking any resolver.
 */
import dns from 'node:dns';

const hosts = new Set((process.env.UNRESOLVABLE_HOSTS ?? '').split(',').filter(Boolean));
const lookup = dns.lookup;
type Callback = (error: NodeJS.ErrnoException | null, ...rest: unknown[]) => void;

(dns as { lookup: unknown }).lookup = function (hostname: string, ...rest: unknown[]): void {
  const callback = rest[rest.length - 1] as Callback;
  if (!hosts.has(hostname)) return (lookup as (...args: unknown[]) => void).call(dns, hostname, ...rest);
  const error = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), {
    code: 'ENOTFOUND',
    errno: -3008,
    syscall: 'getaddrinfo',
    hostname,
  });
  process.nextTick(callback, error);
};
