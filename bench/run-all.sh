#!/usr/bin/env bash
# Runs every benchmark, one after another on an otherwise idle machine, and writes bench/RESULTS.md:
# efs-sim's calibration, the copy tools against the seeder, CPU per file, the seeder's memory, the
# probe's accuracy, seeding S3 Files through its bucket and through its mount (with shorter sync windows
# than S3 Files': 10 s and 5 s). Needs root, /dev/fuse and the tools tools/setup.sh installs; about 20 minutes on 2 cores.
#
#   sudo bash bench/run-all.sh            # or: npm run bench
#   SEED_BASELINE=<other build>/dist/bin/cdk-efs-kit.js npm run bench   # CPU per file of another build beside
set -euo pipefail
cd "$(dirname "$0")/.."
npm run build >/dev/null
out=bench/RESULTS.md
{
  echo '# Benchmark results'
  echo
  echo "Written by \`bench/run-all.sh\` on $(date -u +%Y-%m-%d): $(nproc) x $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(free -g | awk '/Mem:/ {print $2}') GiB, Linux $(uname -r), Node $(node --version)."
  echo 'Timings on a shared 2-core machine are noisy: compare the ratios measured side by side in one run, not the seconds.'
  echo
  echo '## efs-sim calibration (`tools/efs-sim/calibrate.sh`)'
  echo
  tools/efs-sim/calibrate.sh
  echo
  npx tsx bench/copy-tools.ts | sed 's/^# /## /; s/^## \(.*: \)/### \1/'
  echo
  npx tsx bench/seed-cpu.ts ${SEED_BASELINE:+--baseline "$SEED_BASELINE"} | sed 's/^# /## /; s/^## \(Onto\|Worker\)/### \1/'
  echo
  echo '## Seeder memory (`npx tsx bench/seed-memory.ts`)'
  echo
  npx tsx bench/seed-memory.ts
  echo
  echo '## Probe accuracy (`npx tsx bench/probe-accuracy.ts`)'
  echo
  UV_THREADPOOL_SIZE=64 npx tsx bench/probe-accuracy.ts
  echo
  # S3 Files exports about every 60 s and imports bucket changes in about 30 s; 10 s and 5 s keep
  # this section to about 5 minutes, and the table's header says so.
  npx tsx bench/seed-bucket-vs-mount.ts --workload both --export-window 10 --import-delay 5
} >"$out.tmp" 2> >(grep -v 'nodedir\|NodeVersionSupportWarning' >&2)
mv "$out.tmp" "$out"
echo "wrote $out"
