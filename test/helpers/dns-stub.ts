import * as dgram from 'dgram';

/**
 * A DNS server on 127.0.0.1 (UDP, RFC 1035 wire format) that answers A and AAAA queries for the
 * names a test gives it, standing in for a VPC's resolver: a name can start answering only some
 * time after it is set (a new mount target's name propagating), and the whole server can be made
 * silent (a resolver that never answers). Every query is logged.
 */
export interface DnsStub {
  /** `127.0.0.1:<port>`, for a Resolver's setServers or the doctor's --dns-server. */
  readonly server: string;
  /** Answers for `name` from `afterMs` from now on; NXDOMAIN before, and for names never set. */
  set(name: string, records: { A?: string[]; AAAA?: string[] }, afterMs?: number): void;
  /** Drop every query from now on: lookups time out. */
  silence(): void;
  /** The queries so far, in order. */
  readonly queries: Array<{ name: string; type: 'A' | 'AAAA' | string; at: number; answered: 'records' | 'nodata' | 'nxdomain' | 'dropped' }>;
  stop(): Promise<void>;
}

const TYPE_A = 1;
const TYPE_AAAA = 28;

export async function startDnsStub(): Promise<DnsStub> {
  const records = new Map<string, { A: string[]; AAAA: string[]; from: number }>();
  const queries: DnsStub['queries'] = [];
  let silent = false;
  const socket = dgram.createSocket('udp4');
  socket.on('message', (query, from) => {
    const question = parseQuestion(query);
    if (!question) return;
    const typeName = question.type === TYPE_A ? 'A' : question.type === TYPE_AAAA ? 'AAAA' : String(question.type);
    const entry = records.get(question.name);
    const live = entry && Date.now() >= entry.from ? entry : undefined;
    const addresses = !live ? [] : question.type === TYPE_A ? live.A : question.type === TYPE_AAAA ? live.AAAA : [];
    const answered = silent ? 'dropped' : !live ? 'nxdomain' : addresses.length ? 'records' : 'nodata';
    queries.push({ name: question.name, type: typeName, at: Date.now(), answered });
    if (silent) return;
    socket.send(response(query, question, live ? 0 : 3, addresses), from.port, from.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    server: `127.0.0.1:${socket.address().port}`,
    set: (name, r, afterMs = 0) => records.set(name.toLowerCase(), { A: r.A ?? [], AAAA: r.AAAA ?? [], from: Date.now() + afterMs }),
    silence: () => { silent = true; },
    queries,
    stop: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}

interface Question { name: string; type: number; end: number }

function parseQuestion(message: Buffer): Question | undefined {
  if (message.length < 17 || message.readUInt16BE(4) !== 1) return undefined;
  const labels: string[] = [];
  let at = 12;
  while (at < message.length && message[at] !== 0) {
    const length = message[at];
    labels.push(message.subarray(at + 1, at + 1 + length).toString('ascii'));
    at += 1 + length;
  }
  if (at + 5 > message.length) return undefined;
  return { name: labels.join('.').toLowerCase(), type: message.readUInt16BE(at + 1), end: at + 5 };
}

function response(query: Buffer, question: Question, rcode: number, addresses: string[]): Buffer {
  const header = Buffer.alloc(12);
  header.writeUInt16BE(query.readUInt16BE(0), 0); // id
  // QR, the query's opcode and RD, AA and RA set, the rcode.
  header.writeUInt16BE(0x8000 | (query.readUInt16BE(2) & 0x7900) | 0x0400 | 0x0080 | rcode, 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(addresses.length, 6);
  const answers = addresses.map((address) => {
    const data = question.type === TYPE_A ? Buffer.from(address.split('.').map(Number)) : ipv6Bytes(address);
    const rr = Buffer.alloc(12);
    rr.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
    rr.writeUInt16BE(question.type, 2);
    rr.writeUInt16BE(1, 4); // class IN
    rr.writeUInt32BE(0, 6); // TTL 0: nothing may cache it
    rr.writeUInt16BE(data.length, 10);
    return Buffer.concat([rr, data]);
  });
  return Buffer.concat([header, query.subarray(12, question.end), ...answers]);
}

function ipv6Bytes(address: string): Buffer {
  const [head, tail] = address.split('::');
  const groups = (s: string | undefined) => (s ? s.split(':') : []);
  const missing = 8 - groups(head).length - groups(tail).length;
  const all = [...groups(head), ...(tail !== undefined ? Array(missing).fill('0') : []), ...groups(tail)];
  const out = Buffer.alloc(16);
  all.forEach((g, i) => out.writeUInt16BE(parseInt(g, 16), i * 2));
  return out;
}
