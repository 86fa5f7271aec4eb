#!/usr/bin/env bash
# Reproduces the calibration of efs-sim's profiles against published EFS and S3 Files figures (each must
# be within 25%) and prints a markdown table. Needs root, /dev/fuse and, for S3 Files, the .venv; takes about two minutes.
#
#   sudo tools/efs-sim/calibrate.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
mount=$(mktemp -d /tmp/efs-sim-calibrate-XXXXXX)
work=$(mktemp -d /tmp/efs-sim-calibrate-work-XXXXXX)
trap '"$here/efs-sim" stop "$mount" >/dev/null 2>&1 || true; rm -rf "$mount" "$work"' EXIT

seconds() { local s e; s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N); echo "$e - $s" | bc -l; }
row() { # profile, command, measured value, unit, source value, source text
  local ratio; ratio=$(echo "$3 / $5" | bc -l)
  local ok=yes; if (( $(echo "$ratio < 0.75 || $ratio > 1.25" | bc -l) )); then ok=NO; fi
  printf '| %s | `%s` | %.1f %s | %s | %+.0f%% | %s |\n' "$1" "$2" "$3" "$4" "$6" "$(echo "($ratio - 1) * 100" | bc -l)" "$ok"
}
dd_rate() { dd if=/dev/zero of="$mount/dd-$RANDOM" "$@" 2>&1 | sed -nE 's/.*, ([0-9.]+) MB\/s$/\1/p'; }

echo '| profile | command | measured | published figure | difference | within 25% |'
echo '|---|---|---:|---|---:|---|'

"$here/efs-sim" start "$mount" --profile efs-gp
touch_s=$(seconds bash -c "for i in \$(seq 1 1024); do touch '$mount'/t-\$i; done")
row efs-gp 'for i in $(seq 1 1024); do touch $M/t-$i; done' "$(echo "1024 / $touch_s" | bc -l)" 'files/s' 116 '116 files/s, 8.8 s (AWS EFS performance lab)'
row efs-gp 'dd if=/dev/zero of=$M/f bs=1M count=128 oflag=sync' "$(dd_rate bs=1M count=128 oflag=sync)" 'MB/s' 33 '33 MB/s (AWS EFS performance lab)'
row efs-gp 'dd if=/dev/zero of=$M/f bs=16M count=16 oflag=sync' "$(dd_rate bs=16M count=16 oflag=sync)" 'MB/s' 83 '83 MB/s (AWS EFS performance lab)'
"$here/efs-sim" stop "$mount" >/dev/null

# The ownCloud tree of "The Challenges of EFS": files of 8.9 KB on average, untarred one after another.
for d in $(seq 1 10); do mkdir -p "$work/tree/d$d"; for f in $(seq 1 30); do head -c 8900 /dev/urandom >"$work/tree/d$d/f$f"; done; done
tar czf "$work/tree.tar.gz" -C "$work/tree" .
"$here/efs-sim" start "$mount" --profile efs-2016
untar_s=$(seconds tar xzf "$work/tree.tar.gz" -C "$mount")
row efs-2016 'tar xzf tree.tar.gz -C $M  # 300 files of 8.9 KB in 10 directories' "$(echo "$untar_s * 1000 / 300" | bc -l)" 'ms per file' 48 '48 ms per file: 11,000 files in 8 m 48 s ("The Challenges of EFS")'
"$here/efs-sim" stop "$mount" >/dev/null

# S3 Files: the sync agent starts moto's server from the project's .venv (bash tools/setup.sh).
"$here/efs-sim" start "$mount" --profile s3files
mkdir "$mount/ls" "$mount/small"
for i in $(seq 1 1000); do : >"$mount/ls/f-$i"; done
# The fastest of 5: a listing takes tens of milliseconds, which a busy machine easily doubles.
ls_ms=$(for _ in 1 2 3 4 5; do echo "$(seconds ls "$mount/ls") * 1000" | bc -l; done | sort -n | head -1)
row s3files 'ls $M/ls  # 1,000 files, fastest of 5' "$ls_ms" 'ms' 39 '39 ms from Lambda (darryl-ruggles.cloud, 2026-04)'
# Files the kernel has not cached yet, as after a cold start: written to the backing store.
backing=$("$here/efs-sim" backing "$mount")
for i in $(seq 1 1000); do head -c 1024 /dev/urandom >"$backing/small/f-$i"; done
row s3files 'cat $M/small/*  # 1,000 files of 1 KiB' "$(seconds cat "$mount"/small/*)" 's' 4.3 '4.3 s from Lambda (darryl-ruggles.cloud, 2026-04)'
row s3files 'dd if=/dev/zero of=$M/f bs=1M count=100' "$(dd_rate bs=1M count=100)" 'MB/s' 273 '273 MB/s from Lambda, 100 MB sequential write (darryl-ruggles.cloud, 2026-04)'
"$here/efs-sim" stop "$mount" >/dev/null

# fio's figures come from a t3.micro, whose network moves about 140 MB/s a request: its stream rate.
"$here/efs-sim" start "$mount" --profile s3files --stream-mbps=140
backing=$("$here/efs-sim" backing "$mount")
head -c 1048576 /dev/urandom >"$backing/read.bin"
# One read of N bytes at a time, O_DIRECT so that each reaches the file system: the median of 50, in ms.
read_ms() { python3 - "$mount/read.bin" "$1" <<'PY'
import os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECT)
n, times = int(sys.argv[2]), []
for _ in range(50):
    s = time.perf_counter(); os.pread(fd, n, 0); times.append(time.perf_counter() - s)
print(sorted(times)[len(times) // 2] * 1000)
PY
}
row 's3files --stream-mbps=140' 'pread(O_DIRECT) of 1 KB, median of 50' "$(read_ms 1000)" 'ms' 0.69 '0.69 ms, fio on a t3.micro (paradigmadigital, 2026-05)'
row 's3files --stream-mbps=140' 'pread(O_DIRECT) of 100 KB, median of 50' "$(read_ms 100000)" 'ms' 1.39 '1.39 ms, fio on a t3.micro (paradigmadigital, 2026-05)'
row 's3files --stream-mbps=140' 'pread(O_DIRECT) of 1 MB, median of 50  # from S3' "$(read_ms 1000000)" 'ms' 33.6 '33.6 ms, fio on a t3.micro (paradigmadigital, 2026-05)'
