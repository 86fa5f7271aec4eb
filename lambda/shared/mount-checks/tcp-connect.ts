import * as net from 'node:net';

/**
 * A TCP connection to a mount target's NFS port, opened and closed at once: what proves the route
 * and both security groups let NFS through. A security group that drops the SYN shows as a
 * timeout; a host that answers with a reset (nothing listening) as a refusal.
 */
export interface TcpProbe {
  readonly host: string;
  readonly port: number;
  readonly connected: boolean;
  /** Milliseconds to connect, or to fail. */
  readonly ms: number;
  /** Why it did not connect, in words. */
  readonly problem?: string;
}

export function connectTcp(host: string, port: number, timeoutMs: number): Promise<TcpProbe> {
  const started = process.hrtime.bigint();
  const elapsed = () => Number(process.hrtime.bigint() - started) / 1e6;
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const finish = (problem?: string) => {
      socket.destroy();
      resolve({ host, port, connected: problem === undefined, ms: elapsed(), ...(problem === undefined ? {} : { problem }) });
    };
    socket.setTimeout(timeoutMs, () => finish(`no answer within ${timeoutMs / 1000} s (a security group or network ACL that drops the packets, or no route)`));
    socket.once('connect', () => finish());
    socket.once('error', (err: NodeJS.ErrnoException) => finish(connectProblem(err)));
  });
}

function connectProblem(err: NodeJS.ErrnoException): string {
  switch (err.code) {
    case 'ECONNREFUSED': return 'connection refused (the address answers, but nothing listens on the port)';
    case 'EHOSTUNREACH': return 'host unreachable';
    case 'ENETUNREACH': return 'network unreachable (no route to it: an IPv6 address from a client without IPv6?)';
    case 'ECONNRESET': return 'connection reset';
    default: return err.message;
  }
}

/** `host:port`, with brackets around an IPv6 address. */
export function endpointOf(host: string, port: number): string {
  return net.isIPv6(host) ? `[${host}]:${port}` : `${host}:${port}`;
}
