#!/usr/bin/env bash
# Reproduces the calibration of efs-sim's profiles against published EFS figures (each must
# be within 25%) and prints a markdown table. Needs root and /dev/fuse; takes about a minute.
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
