#!/bin/bash
# Alternating A/B of whole `awhm consolidate` processes (old build, new build, interleaved), each build on its own
# fresh copy of a seeded data dir: one lexical query first (the copy's one listing of the logs), then per round 20
# logged messages of a new session and one consolidate under /usr/bin/time (wall, user+sys CPU, peak RSS).
# Run from the repo root: BEFORE_BIN=.tmp/before/awhm.cjs bench/abConsolidate.sh SEED_DIR ROUNDS [scratch dir]
# Mock embedder. Compare the rounds after the first: a fresh copy's first consolidation carries one-off costs.
SEED=$1; R=$2; WORK=${3:-$(mktemp -d)}
OLD=${BEFORE_BIN:?set BEFORE_BIN to an old dist/awhm.cjs (inside the repo, so it finds node_modules)}; NEW=$(pwd)/dist/awhm.cjs

for label in old new; do rm -rf "$WORK/$label"; cp -a "$SEED" "$WORK/$label"; done
for pair in "old:$OLD" "new:$NEW"; do
  label=${pair%%:*}; bin=${pair#*:}
  AWHM_EMBEDDER=none node "$bin" query "Where did Melanie go camping?" --lexical-only --data-dir "$WORK/$label" >/dev/null
done
for r in $(seq 1 "$R"); do
  for pair in "old:$OLD" "new:$NEW"; do
    label=${pair%%:*}; bin=${pair#*:}; sid="ab-$label-$r-$(date +%s%N)"
    for i in $(seq 0 19); do
      AWHM_EMBEDDER=mock node "$bin" log --session "$sid" --role user "I moved to Lisbon in $((2000 + i)) and my dog is called Rex $i" --data-dir "$WORK/$label" >/dev/null
    done
    out=$(AWHM_EMBEDDER=mock /usr/bin/time -f "T %e %U %S %M" node "$bin" consolidate --data-dir "$WORK/$label" 2>&1 >/dev/null | grep '^T ')
    echo "$label $out" | awk '{printf "%s wall %.2f cpu %.2f rss %d\n", $1, $3, $4+$5, $6/1024}'
  done
done
