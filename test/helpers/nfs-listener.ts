import * as crypto from 'crypto';
import * as net from 'net';

/**
 * TCP listeners on loopback standing in for mount targets: each on an address of its own in
 * 127.0.0.0/8 (Linux answers on all of it), on the NFS port itself, so the code under test connects
 * to 2049 as it would in a VPC; an address nobody listens on is a mount target whose port never
 * answers. Connections are accepted and closed; no NFS is spoken.
 */
export interface Listener {
  readonly address: string;
  readonly port: number;
  /** Connections accepted so far. */
  readonly accepted: () => number;
  close(): Promise<void>;
}

/** A random loopback address no other test picks: 127.a.b.c with a, b, c random. */
export function loopbackAddress(): string {
  const [a, b, c] = crypto.randomBytes(3);
  return `127.${1 + (a % 250)}.${b}.${1 + (c % 250)}`;
}

export function listen(address: string, port = 2049): Promise<Listener> {
  let accepted = 0;
  const server = net.createServer((socket) => {
    accepted++;
    socket.destroy();
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, address, () => resolve({
      address,
      port: (server.address() as net.AddressInfo).port,
      accepted: () => accepted,
      close: () => new Promise<void>((done) => server.close(() => done())),
    }));
  });
}
