#!/bin/bash
# The peak and resident memory of ffind's long-lived processes at a folder's first call
# (an empty snapshot folder), read from /proc/PID/status at 10, 20, 30 and 45 s:
#
#   benchmarks/process_memory.sh TREE picker FFIND [ARGS...]   # FFIND -i ARGS in tmux at TREE
#   benchmarks/process_memory.sh TREE server FFIND             # the server `FFIND -l 1 main` starts
#
# FFIND: the ffind to measure (a non-editable install's: the editable finder costs ~15 ms of
# imports).  The picker is the pane shell's child (its walk's forked child is not it); the
# server is found by its command line and its XDG_RUNTIME_DIR.  Its own XDG_* folders under
# a temporary folder, removed at the end (the servers of that runtime folder stopped with
# `ffind --clear-cache`).
set -eu
tree=$1; what=$2; ffind=$3; shift 3
tmp=$(mktemp -d /tmp/ffind-memory.XXXXXX)
export XDG_CACHE_HOME=$tmp/cache XDG_STATE_HOME=$tmp/state XDG_RUNTIME_DIR=$tmp/run
mkdir -p "$XDG_CACHE_HOME" "$XDG_STATE_HOME"; mkdir -m700 "$XDG_RUNTIME_DIR"
session=ffind-memory-$$
status() { grep -E 'VmHWM|VmRSS' "/proc/$1/status" | tr -s ' \t\n' ' '; }
find_pid() {
  if [ "$what" = picker ]; then
    pgrep -P "$pane" -f ffind | head -1
  else
    for p in $(pgrep -f "resident.server --root $tree" || true); do
      if tr '\0' '\n' < "/proc/$p/environ" 2>/dev/null | grep -qx "XDG_RUNTIME_DIR=$XDG_RUNTIME_DIR"; then
        echo "$p"; break
      fi
    done
  fi
}
if [ "$what" = picker ]; then
  tmux new-session -d -s "$session" -x 120 -y 30 \
    "cd '$tree' && XDG_CACHE_HOME=$XDG_CACHE_HOME XDG_STATE_HOME=$XDG_STATE_HOME XDG_RUNTIME_DIR=$XDG_RUNTIME_DIR $ffind -i $*; sleep 30"
  pane=$(tmux display -p -t "$session" '#{pane_pid}')
elif [ "$what" = server ]; then
  (cd "$tree" && "$ffind" -l 1 main >/dev/null)
else
  echo "process_memory.sh: picker or server, not $what" >&2; exit 2
fi
prev=0
for t in 10 20 30 45; do
  sleep $((t - prev)); prev=$t
  pid=$(find_pid)
  echo "$what t=${t}s pid=${pid:-none} ${pid:+$(status "$pid")}"
done
if [ "$what" = picker ]; then
  tmux send-keys -t "$session" Escape; sleep 1; tmux kill-session -t "$session" || true
fi
"$ffind" --clear-cache >/dev/null
rm -rf "$tmp"
