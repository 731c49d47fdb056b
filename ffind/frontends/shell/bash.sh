# ffind's key bindings and **<TAB> completion for bash (4.4 or later).
# Load it in ~/.bashrc with:   eval "$(ffind --bash)"
#
#   CTRL-T   pick files; the word under the cursor is the query; the picked paths replace it,
#            quoted.  Esc leaves the line as it was.
#   ALT-C    pick a folder (ffind -t d) and cd into it.
#   **<TAB>  after any command: pick a path for the word before **, below the folder written
#            before it if any (vim src/**<TAB>); after cd, pushd and rmdir: a folder.
#
#   FFIND_CTRL_T_KEY          readline key for CTRL-T (default "\C-t"; empty: not bound)
#   FFIND_ALT_C_KEY           readline key for ALT-C (default "\ec"; empty: not bound)
#   FFIND_COMPLETION_TRIGGER  what ends the word for fuzzy completion (default "**"; empty: off)
#   FFIND_CTRL_T_OPTS, FFIND_ALT_C_OPTS, FFIND_COMPLETION_OPTS   more ffind flags for each
#   FFIND_HEIGHT              the picker's height (default 40%)
#
# A key left at its default that already runs something (bind -x, a macro, or a readline
# function other than bash's own: transpose-chars, capitalize-word) is left alone, with a note
# on stderr; naming it in FFIND_CTRL_T_KEY / FFIND_ALT_C_KEY takes it.  Existing completions are
# wrapped: without the trigger they run as before.  When fzf's completion is already loaded and
# FFIND_COMPLETION_TRIGGER is not set, ** stays fzf's (with a note).

if [[ $- == *i* ]]; then

# The memory hook: the one place where picks made through the bindings are recorded.
__ffind_remember() { @REMEMBER@; }

# ffind -i inline, NUL-separated; $1: the name of the *_OPTS variable; the rest: ffind flags.
__ffind_pick() {
  local -a opts=()
  eval "opts=(${!1})" 2>/dev/null
  shift
  command ffind -i -0 --height "${FFIND_HEIGHT:-40%}" "${opts[@]}" "$@"
}

# Quote each path for bash, joined by spaces.
__ffind_quote() {
  local out="" p q
  for p in "$@"; do
    printf -v q '%q' "$p"
    out+="${out:+ }$q"
  done
  printf '%s' "$out"
}

__ffind_ctrl_t() {
  local left=${READLINE_LINE:0:READLINE_POINT} right=${READLINE_LINE:READLINE_POINT}
  local wl="" wr=""
  [[ $left =~ ([^[:space:]]*)$ ]] && wl=${BASH_REMATCH[1]}
  [[ $right =~ ^([^[:space:]]*) ]] && wr=${BASH_REMATCH[1]}
  local -a picked=()
  mapfile -d '' -t picked < <(__ffind_pick FFIND_CTRL_T_OPTS -- "$wl$wr")
  (( ${#picked[@]} )) || return 0
  __ffind_remember "${picked[@]}"
  local ins
  ins=$(__ffind_quote "${picked[@]}")
  left=${left:0:${#left}-${#wl}}
  right=${right:${#wr}}
  [[ -z $right || $right == [[:space:]]* ]] || ins+=" "
  READLINE_LINE=$left$ins$right
  READLINE_POINT=$(( ${#left} + ${#ins} ))
}

__ffind_alt_c() {
  local -a picked=()
  mapfile -d '' -t picked < <(__ffind_pick FFIND_ALT_C_OPTS -t d)
  (( ${#picked[@]} )) || return 0
  __ffind_remember "${picked[0]}"
  builtin cd -- "${picked[0]}" || return
}

# What the key $1 runs: a bind -x command, a macro, or a readline function (empty: nothing).
__ffind_binding() {
  local line
  line=$({ bind -X; bind -s; bind -p; } 2>/dev/null | command grep -F -m1 "\"$1\":")
  printf '%s' "${line#*: }"
}

# Bind ${!1} (default $2, bash's own function there $3) to the function $4.
__ffind_bind() {
  local var=$1 default=$2 builtin=$3 fn=$4 key now
  if [[ -z ${!var+set} ]]; then
    key=$default
    now=$(__ffind_binding "$key")
    if [[ -n $now && $now != "$builtin" && $now != self-insert && $now != "\"$fn\"" ]]; then
      printf "ffind: %s is already bound (%s): left alone; set %s to a free key, or to '%s' to take it\n" \
        "$key" "$now" "$var" "$key" >&2
      return 0
    fi
  else
    key=${!var}
  fi
  [[ -n $key ]] || return 0
  bind -m emacs-standard -x "\"$key\": $fn"
  bind -m vi-insert -x "\"$key\": $fn"
}

__ffind_bind FFIND_CTRL_T_KEY '\C-t' transpose-chars __ffind_ctrl_t
__ffind_bind FFIND_ALT_C_KEY '\ec' capitalize-word __ffind_alt_c

# --- **<TAB>: fuzzy completion for any command

declare -gA __ffind_completions=()  # command (or -D) -> the completion function it had

__ffind_complete_pick() {
  local cmd=$1 cur=$2 trigger=$3 base dir="" query
  base=${cur:0:${#cur}-${#trigger}}
  query=$base
  if [[ $base == */* ]]; then  # the longest folder written before the trigger
    dir=${base%/*}/
    while [[ -n $dir ]]; do
      [[ -d ${dir/#\~/$HOME} ]] && break
      if [[ ${dir%/} == */* ]]; then dir=${dir%/}; dir=${dir%/*}/; else dir=""; fi
    done
    query=${base:${#dir}}
  fi
  local -a flags=() picked=()
  case $cmd in cd|pushd|rmdir) flags=(-t d) ;; esac
  [[ -n $dir ]] && flags+=(-C "${dir/#\~/$HOME}")
  mapfile -d '' -t picked < <(__ffind_pick FFIND_COMPLETION_OPTS "${flags[@]}" -- "$query")
  if (( ${#picked[@]} )); then
    __ffind_remember "${picked[@]/#/${dir/#\~/$HOME}}"
    local out="" p q
    for p in "${picked[@]}"; do printf -v q '%q' "$p"; out+="${out:+ }$dir$q"; done
    compopt +o filenames 2>/dev/null
    COMPREPLY=("$out")
  else
    COMPREPLY=("$cur")  # Esc: the word stays as it was
  fi
  printf '\e[5n'  # readline redraws the line (bound below)
}

__ffind_complete() {
  local cur=${COMP_WORDS[COMP_CWORD]} trigger=${FFIND_COMPLETION_TRIGGER-'**'}
  if [[ -n $trigger && $cur == *"$trigger" ]]; then
    __ffind_complete_pick "$1" "$cur" "$trigger"
    return 0
  fi
  local orig=${__ffind_completions[$1]:-${__ffind_completions[-D]}} rc=1
  if [[ -n $orig ]]; then
    "$orig" "$@"
    rc=$?
    # A loader (bash-completion's) set up the command's completion: wrap it too.
    (( rc == 124 )) && __ffind_wrap "$1"
  fi
  return $rc
}

# Wrap the completion function of command $1, so that the trigger works after it too.
__ffind_wrap() {
  local line fn
  line=$(complete -p -- "$1" 2>/dev/null) || return 0
  [[ $line == *" -F "* ]] || return 0
  fn=${line##* -F }; fn=${fn%% *}
  [[ $fn == __ffind_complete ]] && return 0
  __ffind_completions[$1]=$fn
  eval "${line/ -F $fn / -F __ffind_complete }"
}

if [[ -z ${FFIND_COMPLETION_TRIGGER+set} ]] && declare -F _fzf_path_completion >/dev/null; then
  # fzf's completion is loaded and uses the same trigger: it keeps it.
  printf 'ffind: fzf'"'"'s **<TAB> is loaded: left alone; set FFIND_COMPLETION_TRIGGER (e.g. %s) for ffind'"'"'s\n' "',,'" >&2
elif [[ -n ${FFIND_COMPLETION_TRIGGER-'**'} ]]; then
  __ffind_line=$(complete -p -D 2>/dev/null)
  if [[ $__ffind_line == *" -F "* ]]; then
    __ffind_line=${__ffind_line##* -F }
    [[ ${__ffind_line%% *} == __ffind_complete ]] || __ffind_completions[-D]=${__ffind_line%% *}
  fi
  complete -D -o bashdefault -o default -F __ffind_complete
  while IFS= read -r __ffind_line; do
    [[ $__ffind_line == *" -F "* && $__ffind_line != *" -D" && $__ffind_line != *" -E" ]] || continue
    __ffind_wrap "${__ffind_line##* }"
  done < <(complete -p 2>/dev/null)
  unset __ffind_line
  bind '"\e[0n": redraw-current-line' 2>/dev/null
fi

fi
