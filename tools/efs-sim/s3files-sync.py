"""
s3files-sync: the bucket side of efs-sim's S3 Files profile. It runs beside the FUSE daemon, on the
daemon's backing directory and an S3 bucket (moto's server on 127.0.0.1, started here when no
endpoint is given), and does what Amazon S3 Files does between its file system and its bucket:

- export: a file changed through the mount (written, created, deleted, renamed) reaches the bucket
  once the change is --export-window seconds old, in batches; a rename is a copy and a delete per
  object (files keep their inode across a rename, which is how a rename is told from a new file);
- import on first access: the daemon asks (--socket) before a directory is first listed or a name
  in it looked up; the metadata of every entry comes in, and the data of files smaller than
  --import-size-less-than (the others stay in S3 and are read from there: xattr user.s3files.remote);
- changes in the bucket reach imported directories --import-delay seconds after they are seen, a
  new prefix under one as a directory whose entries come in on its own first access;
- the bucket wins a conflict: the mount's copy moves to .s3files-lost+found-<fsid>, never exported.

Why Python: boto3 and moto's server come with the project's .venv, and this agent is one synchronous
loop plus a socket thread; nothing is shared with the TypeScript code.

The bucket is polled for changes (S3 Files is told by event notifications): the poll's listings are
counted apart (pollLists) and left out of s3Requests, which counts what S3 Files itself would send.
Stats are written to --stats-file after every change; SIGUSR2 zeroes them.
"""
import argparse
import json
import os
import signal
import socket
import socketserver
import subprocess
import sys
import threading
import time
import urllib.request

import boto3

XATTR_IMPORTED = 'user.s3files.imported'
XATTR_REMOTE = 'user.s3files.remote'


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    p.add_argument('--backing', required=True)
    p.add_argument('--state-dir', required=True, help='where the socket, stats, endpoint and log go')
    p.add_argument('--bucket', required=True)
    p.add_argument('--prefix', default='')
    p.add_argument('--endpoint', help='S3 endpoint; default: start moto_server on 127.0.0.1')
    p.add_argument('--fsid', required=True)
    p.add_argument('--export-window', type=float, default=60.0)
    p.add_argument('--import-delay', type=float, default=30.0)
    p.add_argument('--import-size-less-than', type=int, default=128 * 1024)
    return p.parse_args()


def start_moto(state_dir):
    """moto's server from the .venv this interpreter runs in, on a free loopback port."""
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        port = s.getsockname()[1]
    server = os.path.join(os.path.dirname(sys.executable), 'moto_server')
    log = open(os.path.join(state_dir, 'moto.log'), 'w')
    child = subprocess.Popen([server, '-H', '127.0.0.1', '-p', str(port)], stdout=log, stderr=log)
    endpoint = f'http://127.0.0.1:{port}'
    deadline = time.time() + 30
    while time.time() < deadline:
        if child.poll() is not None:
            sys.exit(f's3files-sync: moto_server exited with code {child.returncode}')
        try:
            urllib.request.urlopen(f'{endpoint}/moto-api/', timeout=1)
            return endpoint, child
        except OSError:
            time.sleep(0.1)
    child.kill()
    sys.exit('s3files-sync: moto_server did not answer within 30 s')


class Stats:
    KINDS = ('put', 'get', 'copy', 'delete', 'list')

    def __init__(self, path):
        self.path = path
        self.reset()

    def reset(self):
        self.exports = 0            # objects written to the bucket (puts and copies)
        self.export_deletes = 0     # objects deleted from the bucket
        self.export_batches = 0
        self.imports = 0            # entries whose metadata came from the bucket
        self.imported_data = 0      # ... and whose data came too
        self.directory_imports = 0  # directories imported on first access
        self.conflicts = 0
        self.requests = dict.fromkeys(self.KINDS, 0)
        self.poll_lists = 0

    def write(self, pending_exports, pending_imports):
        body = {
            'exports': self.exports, 'exportDeletes': self.export_deletes, 'exportBatches': self.export_batches,
            'imports': self.imports, 'importedData': self.imported_data, 'directoryImports': self.directory_imports,
            'conflicts': self.conflicts, 'pendingExports': pending_exports, 'pendingImports': pending_imports,
            's3Requests': self.requests, 'pollLists': self.poll_lists,
        }
        tmp = self.path + '.tmp'
        with open(tmp, 'w') as f:
            json.dump(body, f)
        os.replace(tmp, self.path)


class Sync:
    def __init__(self, args, s3):
        self.backing = args.backing.rstrip('/')
        self.bucket = args.bucket
        self.prefix = args.prefix.strip('/') + '/' if args.prefix.strip('/') else ''
        self.window = args.export_window
        self.delay = args.import_delay
        self.threshold = args.import_size_less_than
        self.lost_found = f'.s3files-lost+found-{args.fsid}'
        self.s3 = s3
        self.stats = Stats(os.path.join(args.state_dir, 'sync-stats.json'))
        self.lock = threading.Lock()
        self.synced = {}          # key -> (inode, mtime_ns, size, etag): what the mount and the bucket last agreed on
        self.dirty_since = {}     # key -> when a change through the mount was first seen
        self.bucket_seen = {}     # key -> etag in the bucket at the last poll
        self.changed_since = {}   # key -> when a change in the bucket was first seen
        self.new_dirs_since = {}  # a directory only the bucket has, in an imported one -> when first seen
        os.makedirs(os.path.join(self.backing, self.lost_found), exist_ok=True)
        # The daemon drops the kernel's cache of each path written here (a FIFO opened read-write
        # never blocks on open, whether or not the daemon has it open yet).
        fifo = os.path.join(args.state_dir, 'invalidate.fifo')
        if not os.path.exists(fifo):
            os.mkfifo(fifo)
        self.invalidate_fd = os.open(fifo, os.O_RDWR)

    def invalidate(self, rel):
        os.write(self.invalidate_fd, f'/{rel}\n'.encode())

    # ---- paths ----
    def key_of(self, rel):
        return self.prefix + rel

    def rel_of(self, key):
        return key[len(self.prefix):]

    def local(self, rel):
        return os.path.join(self.backing, rel)

    def dir_imported(self, rel_dir):
        try:
            os.getxattr(self.local(rel_dir or '.'), XATTR_IMPORTED)
            return True
        except OSError:
            return False

    def signature(self, path):
        st = os.lstat(path)
        return (st.st_ino, st.st_mtime_ns, st.st_size)

    def write_stats(self):
        self.stats.write(len(self.dirty_since), len(self.changed_since))

    # ---- bucket side ----
    def list_bucket(self, prefix, delimiter=None):
        """{key: (etag, size)} and the common prefixes under `prefix`."""
        objects, prefixes, token = {}, [], None
        while True:
            kwargs = {'Bucket': self.bucket, 'Prefix': prefix}
            if delimiter:
                kwargs['Delimiter'] = delimiter
            if token:
                kwargs['ContinuationToken'] = token
            page = self.s3.list_objects_v2(**kwargs)
            # A directory's listing is S3 Files' own request; the flat listing is only this emulator's poll.
            if delimiter:
                self.stats.requests['list'] += 1
            else:
                self.stats.poll_lists += 1
            for o in page.get('Contents', []):
                objects[o['Key']] = (o['ETag'], o['Size'])
            prefixes += [p['Prefix'] for p in page.get('CommonPrefixes', [])]
            if not page.get('IsTruncated'):
                return objects, prefixes
            token = page['NextContinuationToken']

    def bring_in(self, key, etag, size):
        """The bucket's object into the backing store: the data when below the threshold, else only
        its metadata as S3 Files has it (the emulator fetches the bytes anyway, uncounted, so that
        reads return them; the daemon counts those reads as s3read)."""
        rel = self.rel_of(key)
        path = self.local(rel)
        if key in self.dirty_since or (os.path.lexists(path) and self.is_changed_locally(key, path)):
            self.to_lost_found(rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        body = self.s3.get_object(Bucket=self.bucket, Key=key)['Body'].read()
        with_data = size < self.threshold
        if with_data:
            self.stats.requests['get'] += 1
            self.stats.imported_data += 1
        tmp = os.path.join(os.path.dirname(path), f'.s3files-import-{os.getpid()}')
        with open(tmp, 'wb') as f:
            f.write(body)
        if not with_data:
            os.setxattr(tmp, XATTR_REMOTE, b'1')
        os.replace(tmp, path)
        self.invalidate(rel)
        self.synced[key] = self.signature(path) + (etag,)
        self.stats.imports += 1

    def is_changed_locally(self, key, path):
        known = self.synced.get(key)
        return known is None or known[:3] != self.signature(path)

    def to_lost_found(self, rel):
        """The bucket wins: the mount's copy is kept where S3 Files keeps it, and never exported."""
        path = self.local(rel)
        target = os.path.join(self.backing, self.lost_found, rel)
        if os.path.lexists(target):
            target += f'.{time.time_ns()}'
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if os.path.lexists(path):
            os.rename(path, target)
            self.invalidate(rel)
        self.dirty_since.pop(self.key_of(rel), None)
        self.stats.conflicts += 1

    def import_directory(self, rel_dir):
        """First access of a directory: every entry's metadata, the data of small files."""
        with self.lock:
            if self.dir_imported(rel_dir):
                return
            prefix = self.prefix + (rel_dir + '/' if rel_dir else '')
            objects, prefixes = self.list_bucket(prefix, '/')
            for p in prefixes:
                os.makedirs(self.local(self.rel_of(p).rstrip('/')), exist_ok=True)
                self.stats.imports += 1
            for key, (etag, size) in objects.items():
                if key.endswith('/'):
                    continue  # a directory marker: the directory itself
                known = self.synced.get(key)
                if known is None or known[3] != etag:
                    self.bring_in(key, etag, size)
                self.bucket_seen[key] = etag
                self.changed_since.pop(key, None)
            os.setxattr(self.local(rel_dir or '.'), XATTR_IMPORTED, b'1')
            self.stats.directory_imports += 1
            self.write_stats()

    # ---- one round: the bucket's changes in, the mount's changes out ----
    def tick(self):
        with self.lock:
            now = time.monotonic()
            self.poll_bucket(now)
            self.apply_new_directories(now)
            self.apply_bucket_changes(now)
            self.scan_mount(now)
            self.export(now)
            self.write_stats()

    def poll_bucket(self, now):
        objects, _ = self.list_bucket(self.prefix)
        current = {k: etag for k, (etag, _) in objects.items() if not k.endswith('/')}
        for key in set(current) | set(self.bucket_seen):
            if not self.dir_imported(os.path.dirname(self.rel_of(key))):
                new_dir = self.new_directory(os.path.dirname(self.rel_of(key))) if key in current else None
                if new_dir is not None:
                    self.new_dirs_since.setdefault(new_dir, now)
                continue  # it comes with the directory's import
            etag = current.get(key)
            known = self.synced.get(key)
            if etag != (known[3] if known else None):
                self.changed_since.setdefault(key, now)
            else:
                self.changed_since.pop(key, None)
        self.bucket_seen = current
        self.bucket_sizes = {k: size for k, (_, size) in objects.items()}

    def new_directory(self, rel_dir):
        """The first directory on the way to `rel_dir` that the mount lacks, if its parent is imported
        (the bucket's new prefix shows there as a directory); None when there is none."""
        parts = rel_dir.split('/') if rel_dir else []
        for i in range(len(parts)):
            candidate = '/'.join(parts[:i + 1])
            if not os.path.lexists(self.local(candidate)):
                return candidate if self.dir_imported(os.path.dirname(candidate)) else None
        return None

    def apply_new_directories(self, now):
        for rel_dir, seen in list(self.new_dirs_since.items()):
            if now - seen < self.delay:
                continue
            del self.new_dirs_since[rel_dir]
            # Only while the bucket still has the prefix and the mount its (imported) parent.
            prefix = self.key_of(rel_dir) + '/'
            parent = os.path.dirname(rel_dir)
            if not any(k.startswith(prefix) for k in self.bucket_seen) or not self.dir_imported(parent):
                continue
            try:
                os.mkdir(self.local(rel_dir))
            except FileExistsError:
                continue
            self.invalidate(rel_dir)
            self.stats.imports += 1

    def apply_bucket_changes(self, now, only=None):
        for key, seen in list(self.changed_since.items()):
            if only is None and now - seen < self.delay:
                continue
            if only is not None and key != only:
                continue
            rel = self.rel_of(key)
            del self.changed_since[key]
            etag = self.bucket_seen.get(key)
            if etag is None:  # deleted in the bucket
                path = self.local(rel)
                if os.path.lexists(path):
                    if self.is_changed_locally(key, path):
                        self.to_lost_found(rel)
                    else:
                        os.unlink(path)
                    self.invalidate(rel)
                self.synced.pop(key, None)
                self.dirty_since.pop(key, None)
            else:
                self.bring_in(key, etag, self.bucket_sizes[key])

    def scan_mount(self, now):
        present = set()
        for root, dirs, files in os.walk(self.backing):
            if root == self.backing:
                dirs[:] = [d for d in dirs if d != self.lost_found]
            for name in files:
                if name.startswith('.s3files-import-'):
                    continue
                path = os.path.join(root, name)
                key = self.key_of(os.path.relpath(path, self.backing))
                present.add(key)
                if self.is_changed_locally(key, path):
                    self.dirty_since.setdefault(key, now)
                else:
                    self.dirty_since.pop(key, None)
        for key in self.synced.keys() - present:
            self.dirty_since.setdefault(key, now)  # deleted (or renamed) through the mount

    def export(self, now):
        due = [k for k, since in self.dirty_since.items() if now - since >= self.window]
        if not due:
            return
        for key in due:
            if key in self.changed_since:
                # Changed on both sides: the bucket's version wins, now.
                self.apply_bucket_changes(now, only=key)
        due = [k for k in due if k in self.dirty_since]
        gone = {k for k in due if not os.path.lexists(self.local(self.rel_of(k)))}
        by_inode = {self.synced[k][0]: k for k in gone if k in self.synced}
        exported = False
        for key in sorted(set(due) - gone):
            path = self.local(self.rel_of(key))
            sig = self.signature(path)
            source = by_inode.get(sig[0])
            if source is not None and self.synced[source][:3] == sig:
                # A rename: S3 has none, so each object is copied to its new key (its old key goes below).
                etag = self.s3.copy_object(Bucket=self.bucket, Key=key,
                                           CopySource={'Bucket': self.bucket, 'Key': source})['CopyObjectResult']['ETag']
                self.stats.requests['copy'] += 1
            else:
                with open(path, 'rb') as f:
                    etag = self.s3.put_object(Bucket=self.bucket, Key=key, Body=f.read())['ETag']
                self.stats.requests['put'] += 1
            self.synced[key] = sig + (etag,)
            self.bucket_seen[key] = etag
            self.stats.exports += 1
            del self.dirty_since[key]
            exported = True
        for key in sorted(gone):
            self.s3.delete_object(Bucket=self.bucket, Key=key)
            self.stats.requests['delete'] += 1
            self.stats.export_deletes += 1
            self.synced.pop(key, None)
            self.bucket_seen.pop(key, None)
            del self.dirty_since[key]
            exported = True
        if exported:
            self.stats.export_batches += 1


def serve_imports(sync, path):
    """One request per connection: a directory relative to the mount, answered 'ok' once imported."""
    class Handler(socketserver.StreamRequestHandler):
        def handle(self):
            rel = self.rfile.readline().decode().rstrip('\n')
            rel = '' if rel == '.' else rel
            try:
                sync.import_directory(rel)
                self.wfile.write(b'ok\n')
            except Exception as err:  # the daemon turns anything but ok into EIO
                print(f's3files-sync: import of "{rel}" failed: {err}', file=sys.stderr, flush=True)
                self.wfile.write(b'error\n')

    if os.path.exists(path):
        os.unlink(path)
    server = socketserver.ThreadingUnixStreamServer(path, Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()


def main():
    args = parse_args()
    moto = None
    endpoint = args.endpoint
    if not endpoint:
        endpoint, moto = start_moto(args.state_dir)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    try:
        s3 = boto3.client('s3', endpoint_url=endpoint, region_name='us-east-1',
                          aws_access_key_id='test', aws_secret_access_key='test',
                          config=boto3.session.Config(s3={'addressing_style': 'path'}))
        existing = [b['Name'] for b in s3.list_buckets().get('Buckets', [])]
        if args.bucket not in existing:
            s3.create_bucket(Bucket=args.bucket)
        # S3 Files requires versioning on its bucket.
        s3.put_bucket_versioning(Bucket=args.bucket, VersioningConfiguration={'Status': 'Enabled'})
        sync = Sync(args, s3)
        sync.write_stats()
        signal.signal(signal.SIGUSR2, lambda *_: (sync.stats.reset(), sync.write_stats()))
        serve_imports(sync, os.path.join(args.state_dir, 'import.sock'))
        with open(os.path.join(args.state_dir, 'endpoint'), 'w') as f:
            f.write(endpoint)
        # A tick a fifth of the shortest delay: changes are acted on within 20% of their due time.
        tick = max(0.05, min(1.0, args.export_window / 5, args.import_delay / 5))
        while not stop.wait(tick):
            try:
                sync.tick()
            except Exception as err:  # a failed round is retried on the next tick, as S3 Files retries
                print(f's3files-sync: {err}', file=sys.stderr, flush=True)
    finally:
        if moto:
            moto.terminate()
            moto.wait()


if __name__ == '__main__':
    main()
