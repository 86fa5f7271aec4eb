import { MountType, NfsMountOptions } from '../../../lib';

test('the recommended NFS options are the ones EFS documents', () => {
  expect(NfsMountOptions.recommendedNfs().toString()).toBe('nfsvers=4.1,rsize=1048576,wsize=1048576,hard,timeo=600,retrans=2,noresvport');
});

test('renders an fstab line that never blocks boot', () => {
  expect(NfsMountOptions.recommendedNfs().toFstabLine('fs-1.efs.us-east-1.amazonaws.com:/', '/mnt/efs', MountType.NFS4))
    .toBe('fs-1.efs.us-east-1.amazonaws.com:/ /mnt/efs nfs4 nfsvers=4.1,rsize=1048576,wsize=1048576,hard,timeo=600,retrans=2,noresvport,_netdev,nofail 0 0');
});

test('renders an efs-utils mount command with TLS, IAM and the access point', () => {
  expect(NfsMountOptions.efsUtils({ accessPointId: 'fsap-123' }).toMountCommand('fs-1:/', '/mnt/efs', MountType.EFS))
    .toBe('mount -t efs -o tls,iam,accesspoint=fsap-123 fs-1:/ /mnt/efs');
});

test('withOverrides() replaces options of the same name', () => {
  expect(NfsMountOptions.recommendedNfs().withOverrides('timeo=300', 'ro').toString())
    .toBe('nfsvers=4.1,rsize=1048576,wsize=1048576,hard,retrans=2,noresvport,timeo=300,ro');
});

test.each([
  ['noac', /'noac' is advised against on Amazon EFS: it disables attribute caching/],
  ['actimeo=0', /'actimeo=0' is advised against/],
  ['lookupcache=none', /'lookupcache=none' is advised against/],
  ['fsc', /'fsc' is advised against on Amazon EFS: it FS-Cache/],
])('fails when given %s', (option, message) => {
  expect(() => NfsMountOptions.recommendedNfs().withOverrides(option)).toThrow(message);
});

test('fails when an option is malformed', () => {
  expect(() => new NfsMountOptions(['rsize=1,wsize=1'])).toThrow("NfsMountOptions: 'rsize=1,wsize=1' is not a mount option");
});
