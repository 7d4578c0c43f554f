#!/bin/bash
# Alternating A/B of whole `awhm query` processes (old build, new build, interleaved) under /usr/bin/time: wall, user+sys CPU, peak RSS.
# Run from the repo root: BEFORE_BIN=.tmp/before/awhm.cjs bench/abQuery.sh DATA_DIR ROUNDS [query flags]
# AB_HOOK=1: `awhm hook prompt` in the process instead (mock embedder, one session per build), the question as the prompt.
DIR=$1; R=$2; shift 2
OLD=${BEFORE_BIN:?set BEFORE_BIN to an old dist/awhm.cjs (inside the repo, so it finds node_modules)}; NEW=$(pwd)/dist/awhm.cjs
Q=("What did Caroline research?" "When did Melanie paint a sunrise?" "What is Caroline's identity?" "Where did Melanie go camping?")

for i in $(seq 1 $R); do
  for pair in "old:$OLD" "new:$NEW"; do
    label=${pair%%:*}; bin=${pair#*:}
    q=${Q[$((i % 4))]}
    if [ "${AB_HOOK:-0}" = 1 ]; then
      cmd=(env AWHM_EMBEDDER=mock node "$bin" hook prompt); input="{\"session_id\":\"ab-$label\",\"cwd\":\"/bench/project\",\"prompt\":\"$q ($i)\"}"
    else
      cmd=(node "$bin" query "$q" "$@"); input=""
    fi
    out=$(echo "$input" | AWHM_DATA_DIR=$DIR AWHM_HOOK_SERVER=0 /usr/bin/time -f "T %e %U %S %M" "${cmd[@]}" 2>&1 >/tmp/scan_q_$label.json | grep '^T ')
    echo "$label $out" | awk '{printf "%s wall %.2f cpu %.2f rss %d\n", $1, $3, $4+$5, $6/1024}'
  done
done
