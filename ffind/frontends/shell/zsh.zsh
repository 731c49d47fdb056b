# ffind's key bindings and **<TAB> completion for zsh.
# Load it in ~/.zshrc with:   source <(ffind --zsh)
#
#   CTRL-T   pick files; the word under the cursor is the query; the picked paths replace it,
#            quoted.  Esc leaves the line as it was.
#   ALT-C    pick a folder (ffind -t d) and cd into it.
#   **<TAB>  after any command: pick a path for the word before **, below the folder written
#            before it if any (vim src/**<TAB>); after cd, pushd and rmdir: a folder.
#
#   FFIND_CTRL_T_KEY          bindkey key for CTRL-T (default '^T'; empty: not bound)
#   FFIND_ALT_C_KEY           bindkey key for ALT-C (default '\ec'; empty: not bound)
#   FFIND_COMPLETION_TRIGGER  what ends the word for fuzzy completion (default '**'; empty: off)
#   FFIND_CTRL_T_OPTS, FFIND_ALT_C_OPTS, FFIND_COMPLETION_OPTS   more ffind flags for each
#   FFIND_HEIGHT              the picker's height (default 40%)
#
# A key left at its default that is already bound to a widget other than zsh's own
# (transpose-chars, capitalize-word) is left alone, with a note on stderr; naming it in
# FFIND_CTRL_T_KEY / FFIND_ALT_C_KEY takes it.  TAB keeps the widget it had (zsh's
# expand-or-complete, or fzf's): without the trigger it runs as before.  When TAB is fzf's and
# FFIND_COMPLETION_TRIGGER is not set, ** stays fzf's (with a note).

if [[ -o interactive ]]; then

# The memory hook: the one place where picks made through the bindings are recorded.
__ffind_remember() { @REMEMBER@; }

# ffind -i inline, NUL-separated; $1: the name of the *_OPTS variable; the rest: ffind flags.
__ffind_pick() {
  local -a opts
  opts=(${(z)${(P)1}})
  opts=(${(Q)opts})
  shift
  command ffind -i -0 --height "${FFIND_HEIGHT:-40%}" "${opts[@]}" "$@" < /dev/tty
}

ffind-file-widget() {
  local wl=${LBUFFER##*[[:space:]]} wr=${RBUFFER%%[[:space:]]*}
  local -a picked
  picked=(${(0)"$(__ffind_pick FFIND_CTRL_T_OPTS -- "$wl$wr")"})
  if (( $#picked )); then
    __ffind_remember "${picked[@]}"
    local ins=${(j: :)${(q)picked}}
    LBUFFER=${LBUFFER[1,$#LBUFFER-$#wl]}$ins
    RBUFFER=${RBUFFER[$#wr+1,-1]}
    [[ -z $RBUFFER || $RBUFFER == [[:space:]]* ]] || LBUFFER+=" "
  fi
  zle reset-prompt
}

ffind-cd-widget() {
  local -a picked
  picked=(${(0)"$(__ffind_pick FFIND_ALT_C_OPTS -t d)"})
  if (( $#picked )); then
    __ffind_remember "${picked[1]}"
    builtin cd -- "${picked[1]}" || return
    local f
    for f in $precmd_functions; do "$f"; done  # the prompt shows the new folder
  fi
  zle reset-prompt
}

# Bind ${(P)1} (default $2, zsh's own widget there $3) to the widget $4.
__ffind_bind() {
  local var=$1 default=$2 builtin=$3 widget=$4 key now
  zle -N $widget
  if [[ ! -v $var ]]; then
    key=$default
    now=${${(z)"$(bindkey -- "$key")"}[2]}
    if [[ -n $now && $now != $builtin && $now != $widget && $now != undefined-key ]]; then
      print -ru2 -- "ffind: $key is already bound ($now): left alone; set $var to a free key, or to '$key' to take it"
      return 0
    fi
  else
    key=${(P)var}
  fi
  [[ -n $key ]] || return 0
  bindkey -M emacs -- "$key" $widget
  bindkey -M viins -- "$key" $widget
}

__ffind_bind FFIND_CTRL_T_KEY '^T' transpose-chars ffind-file-widget
__ffind_bind FFIND_ALT_C_KEY '\ec' capitalize-word ffind-cd-widget

# --- **<TAB>: fuzzy completion for any command

ffind-completion() {
  local trigger=${FFIND_COMPLETION_TRIGGER-'**'}
  local -a tokens
  tokens=(${(z)LBUFFER})
  if [[ -z $trigger || ${#tokens} -lt 2 || ${tokens[-1]} != *"$trigger" || $LBUFFER == *[[:space:]] ]]; then
    zle ${__ffind_tab_widget:-expand-or-complete}
    return
  fi
  local cur=${tokens[-1]} cmd=${tokens[1]} base dir="" query
  base=${cur[1,$#cur-$#trigger]}
  query=$base
  if [[ $base == */* ]]; then  # the longest folder written before the trigger
    dir=${base%/*}/
    while [[ -n $dir ]]; do
      [[ -d ${~dir} ]] && break
      if [[ ${dir%/} == */* ]]; then dir=${dir%/}; dir=${dir%/*}/; else dir=""; fi
    done
    query=${base[$#dir+1,-1]}
  fi
  local -a flags picked
  [[ $cmd == (cd|pushd|rmdir) ]] && flags=(-t d)
  [[ -n $dir ]] && flags+=(-C ${~dir})
  picked=(${(0)"$(__ffind_pick FFIND_COMPLETION_OPTS "${flags[@]}" -- "$query")"})
  if (( $#picked )); then
    __ffind_remember "${(@)picked/#/${~dir}}"
    local p out=""
    for p in "${picked[@]}"; do out+="${out:+ }$dir${(q)p}"; done
    LBUFFER=${LBUFFER[1,$#LBUFFER-$#cur]}$out
  fi
  zle reset-prompt
}

() {
  local now=${${(z)"$(bindkey '^I')"}[2]}
  if [[ ! -v FFIND_COMPLETION_TRIGGER && $now == fzf-* ]]; then
    # fzf's completion is loaded and uses the same trigger: it keeps it.
    print -ru2 -- "ffind: fzf's **<TAB> is loaded ($now): left alone; set FFIND_COMPLETION_TRIGGER (e.g. ',,') for ffind's"
    return 0
  fi
  [[ -n ${FFIND_COMPLETION_TRIGGER-'**'} ]] || return 0
  [[ $now == ffind-completion ]] || typeset -g __ffind_tab_widget=${now:-expand-or-complete}
  zle -N ffind-completion
  bindkey -M emacs '^I' ffind-completion
  bindkey -M viins '^I' ffind-completion
}

fi
