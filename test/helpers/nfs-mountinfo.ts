/**
 * /proc/self/mountinfo lines of NFS mounts of EFS. This machine's kernel has no NFS client, so these
 * are fixtures, not mounts: the options are copied from real EFS mounts' `mount` output as published
 * (the kernel's own spelling: vers=, namlen=, proto=, clientaddr=, local_lock=, addr=), e.g.
 * - through amazon-efs-utils: `127.0.0.1:/ on /mnt/efs type nfs4 (rw,relatime,vers=4.1,rsize=1048576,
 *   wsize=1048576,namlen=255,hard,noresvport,proto=tcp,port=20049,timeo=600,retrans=2,sec=sys,
 *   clientaddr=127.0.0.1,local_lock=none,addr=127.0.0.1)` (efs-utils adds port=<its local port>);
 * - direct: `fs-….efs.us-east-1.amazonaws.com:/ … nfs4 rw,relatime,vers=4.1,rsize=1048576,wsize=1048576,
 *   namlen=255,hard,noresvport,proto=tcp,timeo=600,retrans=2,sec=sys,clientaddr=172.31.27.13,
 *   local_lock=none,addr=172.31.27.156`;
 * laid out as mountinfo lays them out (proc(5)): per-mount options before the separator, the NFS
 * options as super options after the source. The advised-against ones are the kernel's rendering
 * of the options nfs(5) documents (actimeo=0 shows as its four parts).
 */
export const NFS_MOUNTINFO = {
  efsUtilsTls: '38 25 0:47 / /mnt/efs rw,relatime shared:21 - nfs4 127.0.0.1:/ rw,vers=4.1,rsize=1048576,wsize=1048576,namlen=255,hard,noresvport,proto=tcp,port=20049,timeo=600,retrans=2,sec=sys,clientaddr=127.0.0.1,local_lock=none,addr=127.0.0.1',
  dnsNameRecommended: '41 25 0:52 / /mnt/shared rw,relatime shared:24 - nfs4 fs-0313e79d562273a6b.efs.us-east-1.amazonaws.com:/ rw,vers=4.1,rsize=1048576,wsize=1048576,namlen=255,hard,noresvport,proto=tcp,timeo=600,retrans=2,sec=sys,clientaddr=172.31.27.13,local_lock=none,addr=172.31.27.156',
  ipv6Recommended: '43 25 0:55 / /mnt/efs6 rw,relatime shared:26 - nfs4 [2600:1f18:abcd:1201::15]:/ rw,vers=4.1,rsize=1048576,wsize=1048576,namlen=255,hard,noresvport,proto=tcp6,timeo=600,retrans=2,sec=sys,clientaddr=2600:1f18:abcd:1201::99,local_lock=none,addr=2600:1f18:abcd:1201::15',
  // `mount -t nfs4 10.55.15.43:/ /var/www/efs` with no options: the kernel's defaults (EFS negotiates 4.1 and 1 MiB).
  ipDefaults: '45 25 0:58 / /var/www/efs rw,relatime shared:28 - nfs4 10.55.15.43:/ rw,vers=4.1,rsize=1048576,wsize=1048576,namlen=255,hard,proto=tcp,timeo=600,retrans=2,sec=sys,clientaddr=10.55.5.226,local_lock=none,addr=10.55.15.43',
  advisedAgainst: '47 25 0:60 / /mnt/slow rw,relatime shared:30 - nfs4 10.0.1.5:/ rw,vers=4.0,rsize=32768,wsize=32768,namlen=255,soft,noac,noresvport,proto=tcp,timeo=50,retrans=5,sec=sys,clientaddr=10.0.1.9,lookupcache=none,local_lock=none,addr=10.0.1.5',
  actimeoZero: '49 25 0:62 / /mnt/nocache rw,relatime shared:32 - nfs4 10.0.1.5:/ rw,vers=4.1,rsize=1048576,wsize=1048576,namlen=255,acregmin=0,acregmax=0,acdirmin=0,acdirmax=0,hard,noresvport,proto=tcp,timeo=600,retrans=2,sec=sys,clientaddr=10.0.1.9,local_lock=none,addr=10.0.1.5',
};
