/**
 * What the readiness gate's own work costs, when the names already resolve: its onEvent (as the
 * Provider framework invokes it, properties checked, one round) for 1, 2 and 3 mount targets, each
 * round being a zone-name lookup and a TCP connection per mount target plus the file system name's
 * lookup, against the stub DNS server on 127.0.0.1 and listeners on loopback port 2049 (as
 * test/mount-readiness.test.ts runs them); and the cold load of the bundled handler. In a VPC a
 * lookup and a connection take about a millisecond each; the gate's deploy cost is its invocations
 * (docs/doctor.md). Needs root (port 2049) and `npm run build` (the bundle).
 *
 *   npx tsx bench/mount-readiness.ts [rounds]
 */
import { execFileSync } from 'child_process';
import * as path from 'path';
import { onEvent, ReadinessEvent } from '../lambda/mount-readiness/custom-resource';
import { newResolver } from '../lambda/shared/mount-checks/dns-lookup';
import { startDnsStub } from '../test/helpers/dns-stub';
import { listen, Listener, loopbackAddress } from '../test/helpers/nfs-listener';

const FS = 'fs-0123456789abcdef0';
const REGION = 'us-east-1';
const ZONES = ['us-east-1a', 'us-east-1b', 'us-east-1c'];
const ROUNDS = Number(process.argv[2] ?? 30);

const stats = (ms: number[]) => {
  const s = [...ms].sort((a, b) => a - b);
  const f = (v: number) => v.toFixed(1);
  return `min ${f(s[0])} ms, median ${f(s[Math.floor(s.length / 2)])} ms, max ${f(s[s.length - 1])} ms`;
};

async function main(): Promise<void> {
  // The handler logs a line per round, as it would to CloudWatch; only the figures are printed here.
  const print = console.log;
  console.log = () => undefined;
  const dns = await startDnsStub();
  const listeners: Listener[] = [];
  try {
    const targets = [];
    for (const [i, zone] of ZONES.entries()) {
      const address = loopbackAddress();
      listeners.push(await listen(address));
      dns.set(`${zone}.${FS}.efs.${REGION}.amazonaws.com`, { A: [address] });
      targets.push({ MountTargetId: `fsmt-0000000${i}`, AvailabilityZone: zone, IpAddress: address });
    }
    dns.set(`${FS}.efs.${REGION}.amazonaws.com`, { A: [targets[0].IpAddress] });
    const resolver = newResolver({ servers: [dns.server] });
    const deps = { resolver, remainingMs: () => 60_000, describeMountTargets: async () => { throw new Error('not called: the properties give every address'); } };

    print(`# Readiness gate: onEvent, one round, names resolving at once (${ROUNDS} runs each)`);
    print();
    for (const count of [1, 2, 3]) {
      const event: ReadinessEvent = {
        RequestType: 'Create',
        ResourceProperties: { FileSystemId: FS, Region: REGION, MountTargets: targets.slice(0, count), TimeLimitSeconds: '600' },
      };
      const times: number[] = [];
      for (let run = 0; run < ROUNDS; run++) {
        const started = process.hrtime.bigint();
        await onEvent(event, deps); // returns once everything answered: here, after the first round
        times.push(Number(process.hrtime.bigint() - started) / 1e6);
      }
      print(`- ${count} mount target${count > 1 ? 's' : ''} (${2 * count + 1} steps: ${count} zone name${count > 1 ? 's' : ''}, ${count} connection${count > 1 ? 's' : ''}, the file system name): ${stats(times)}`);
    }
    const bundle = path.join(__dirname, '..', 'dist', 'handlers', 'mount-readiness', 'index.js');
    const loads: number[] = [];
    for (let run = 0; run < 10; run++) {
      const out = execFileSync(process.execPath, ['-e', `const t = process.hrtime.bigint(); require(${JSON.stringify(bundle)}); console.log(Number(process.hrtime.bigint() - t) / 1e6)`], { encoding: 'utf8' });
      loads.push(Number(out.trim()));
    }
    print(`- loading the bundled handler (${bundle.replace(/.*\/dist\//, 'dist/')}, a cold start's share), 10 fresh processes: ${stats(loads)}`);
  } finally {
    await dns.stop();
    await Promise.all(listeners.map((l) => l.close()));
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
