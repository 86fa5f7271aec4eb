import * as http from 'http';
import * as net from 'net';

/**
 * An HTTP proxy on 127.0.0.1 in front of a real S3 endpoint (moto's server), which breaks the
 * requests its rules pick as S3 and networks break them: a connection accepted and never answered
 * (or answered with half a body and then silence), a connection reset (before the answer, or halfway
 * through the body), S3's 503 SlowDown, S3's 500 InternalError. Every other request passes through
 * untouched. Rules can change while the proxy runs; `log` and `counts` say what happened.
 */
export type Fault = 'stall' | 'stall-body' | 'reset' | 'reset-body' | 'slow-down' | 'internal-error';

export interface FaultRule {
  readonly fault: Fault;
  /** Requests whose method matches (default: any). */
  readonly method?: string;
  /** Requests whose URL (path and query, as sent: '/bucket/key?...') matches (default: any). */
  readonly url?: RegExp;
  /** Fraction of the matching requests broken, at random (default 1: all of them). */
  readonly rate?: number;
  /** Only the first this many matching requests are broken (default: no limit). */
  readonly times?: number;
  /**
   * Only the matching requests beyond this many a second (a token bucket of one second's worth):
   * throttling as S3 does it, by request rate, rather than at random.
   */
  readonly abovePerSecond?: number;
}

export interface ProxiedRequest {
  readonly method: string;
  readonly url: string;
  /** The fault the request met, if any. */
  readonly fault?: Fault;
}

export interface FaultProxy {
  readonly endpoint: string;
  /** The rules: the first that breaks a request says how; replace them at any time. */
  rules: FaultRule[];
  readonly log: ProxiedRequest[];
  /** Requests broken per fault. */
  counts(): Record<Fault, number>;
  stop(): Promise<void>;
}

/** S3's error document (the REST API's `Error` element), as a 503 or 500 carries it. */
function s3Error(code: string, message: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message>`
    + `<RequestId>FAULTPROXY${Date.now()}</RequestId><HostId>fault-proxy</HostId></Error>`;
}

const ERRORS: Partial<Record<Fault, { status: number; body: string }>> = {
  'slow-down': { status: 503, body: s3Error('SlowDown', 'Please reduce your request rate.') },
  'internal-error': { status: 500, body: s3Error('InternalError', 'We encountered an internal error. Please try again.') },
};

interface RuleState {
  broken: number;
  tokens: number;
  lastRefill: number;
}

export async function startFaultProxy(upstream: string, rules: FaultRule[] = []): Promise<FaultProxy> {
  const target = new URL(upstream);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const sockets = new Set<net.Socket>();
  const states = new WeakMap<FaultRule, RuleState>();
  const log: ProxiedRequest[] = [];

  const stateOf = (rule: FaultRule): RuleState => {
    let state = states.get(rule);
    if (!state) {
      state = { broken: 0, tokens: rule.abovePerSecond ?? 0, lastRefill: Date.now() };
      states.set(rule, state);
    }
    return state;
  };

  /** Whether `rule` breaks this request (it matches, and its rate, count and request rate say so). */
  const breaks = (rule: FaultRule, req: http.IncomingMessage): boolean => {
    if ((rule.method && rule.method !== req.method) || (rule.url && !rule.url.test(req.url ?? ''))) return false;
    const state = stateOf(rule);
    if (rule.abovePerSecond !== undefined) {
      const now = Date.now();
      state.tokens = Math.min(rule.abovePerSecond, state.tokens + ((now - state.lastRefill) / 1000) * rule.abovePerSecond);
      state.lastRefill = now;
      if (state.tokens >= 1) {
        state.tokens -= 1;
        return false;
      }
    }
    if (rule.times !== undefined && state.broken >= rule.times) return false;
    if (rule.rate !== undefined && Math.random() >= rule.rate) return false;
    state.broken++;
    return true;
  };

  /** The fault of the first rule that breaks this request, if any. */
  const faultFor = (req: http.IncomingMessage): Fault | undefined => proxy.rules.find((rule) => breaks(rule, req))?.fault;

  const server = http.createServer((req, res) => {
    const fault = faultFor(req);
    log.push({ method: req.method ?? '', url: req.url ?? '', fault });
    if (fault === 'stall') return; // the connection stays open, unanswered, until the client gives up
    if (fault === 'reset') {
      req.socket.resetAndDestroy();
      return;
    }
    const error = fault && ERRORS[fault];
    if (error) {
      req.resume();
      res.writeHead(error.status, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(error.body) });
      res.end(error.body);
      return;
    }
    const upstreamReq = http.request({
      host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers, agent,
    }, (upstreamRes) => {
      res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.headers);
      if (fault === 'stall-body' || fault === 'reset-body') {
        breakBody(upstreamRes, res, fault);
        return;
      }
      upstreamRes.pipe(res);
    });
    upstreamReq.on('error', () => req.socket.destroy());
    req.pipe(upstreamReq);
  });
  server.keepAliveTimeout = 60_000;
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;

  const proxy: FaultProxy = {
    endpoint: `http://127.0.0.1:${port}`,
    rules,
    log,
    counts() {
      const counts = { 'stall': 0, 'stall-body': 0, 'reset': 0, 'reset-body': 0, 'slow-down': 0, 'internal-error': 0 };
      for (const entry of log) if (entry.fault) counts[entry.fault]++;
      return counts;
    },
    async stop() {
      for (const socket of sockets) socket.destroy();
      agent.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return proxy;
}

/** Sends the first half of the body (at least one byte), then goes silent or resets the connection. */
function breakBody(upstreamRes: http.IncomingMessage, res: http.ServerResponse, fault: 'stall-body' | 'reset-body'): void {
  const length = Number(upstreamRes.headers['content-length'] ?? 0);
  const keep = Math.max(1, Math.floor(length / 2));
  const chunks: Buffer[] = [];
  let held = 0;
  upstreamRes.on('data', (chunk: Buffer) => {
    chunks.push(chunk);
    held += chunk.length;
  });
  upstreamRes.on('end', () => {
    res.write(Buffer.concat(chunks, held).subarray(0, keep), () => {
      if (fault === 'reset-body') res.socket?.resetAndDestroy();
    });
  });
}
