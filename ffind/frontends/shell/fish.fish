# ffind's key bindings and **<TAB> completion for fish (3.1 or later).
# Load it in ~/.config/fish/config.fish with:   ffind --fish | source
#
#   CTRL-T   pick files; the token under the cursor is the query; the picked paths replace it,
#            quoted.  Esc leaves the line as it was.
#   ALT-C    pick a folder (ffind -t d) and cd into it.
#   **<TAB>  after any command: pick a path for the token before **, below the folder written
#            before it if any (vim src/**<TAB>); after cd, pushd and rmdir: a folder.
#
#   FFIND_CTRL_T_KEY          bind key for CTRL-T (default \ct; empty: not bound)
#   FFIND_ALT_C_KEY           bind key for ALT-C (default \ec; empty: not bound)
#   FFIND_COMPLETION_TRIGGER  what ends the token for fuzzy completion (default **; empty: off)
#   FFIND_CTRL_T_OPTS, FFIND_ALT_C_OPTS, FFIND_COMPLETION_OPTS   more ffind flags for each
#   FFIND_HEIGHT              the picker's height (default 40%)
#
# A key left at its default that already has a user binding (bind --user: fzf's, or yours) is
# left alone, with a note on stderr; naming it in FFIND_CTRL_T_KEY / FFIND_ALT_C_KEY takes it.
# TAB: without the trigger it completes as before (or runs the user binding it had).

if status is-interactive

# The memory hook: the one place where picks made through the bindings are recorded.
function __ffind_remember
    @REMEMBER@
end

# ffind -i inline, NUL-separated; $argv[1]: the name of the *_OPTS variable; the rest: flags.
function __ffind_pick
    set -l opts
    set -q $argv[1]; and eval set opts $$argv[1]
    set -l height 40%
    set -q FFIND_HEIGHT; and set height $FFIND_HEIGHT
    command ffind -i -0 --height $height $opts $argv[2..-1] </dev/tty
end

function ffind-file-widget
    set -l token (commandline -t)
    set -l picked (__ffind_pick FFIND_CTRL_T_OPTS -- "$token" | string split0)
    if test (count $picked) -gt 0
        __ffind_remember $picked
        commandline -rt -- (string join ' ' -- (string escape -- $picked))
    end
    commandline -f repaint
end

function ffind-cd-widget
    set -l picked (__ffind_pick FFIND_ALT_C_OPTS -t d | string split0)
    if test (count $picked) -gt 0
        __ffind_remember $picked[1]
        builtin cd -- $picked[1]
    end
    commandline -f repaint
end

# Bind $$argv[1] (default $argv[2]) to the function $argv[3].
function __ffind_bind -a var default fn
    set -l key $default
    if set -q $var
        set key (string unescape -- $$var)  # "\cf" from another shell's environment too
    else if bind --user $key >/dev/null 2>&1
        set -l now (bind --user $key)
        if not string match -q -- "*$fn" "$now"
            set -l shown (string escape -- $key)
            echo "ffind: $shown is already bound ($now): left alone; set $var to a free key, or to $shown to take it" >&2
            return 0
        end
    end
    test -n "$key"; or return 0
    bind $key $fn
    bind -M insert $key $fn 2>/dev/null
end

__ffind_bind FFIND_CTRL_T_KEY \ct ffind-file-widget
__ffind_bind FFIND_ALT_C_KEY \ec ffind-cd-widget

# --- **<TAB>: fuzzy completion for any command

function ffind-completion
    set -l trigger '**'
    set -q FFIND_COMPLETION_TRIGGER; and set trigger $FFIND_COMPLETION_TRIGGER
    set -l cur (commandline -ct)
    set -l n (string length -- "$trigger")
    set -l words (commandline -opc)
    if test -z "$trigger"; or test (count $words) -lt 1; or test (string length -- "$cur") -lt $n
        or test (string sub -s -$n -- "$cur") != "$trigger"
        if set -q __ffind_tab_binding[1]
            eval $__ffind_tab_binding
        else
            commandline -f complete
        end
        return
    end
    set -l base (string sub -e -$n -- "$cur")
    test -z "$base"; and set base ""
    set -l dir ""
    set -l query $base
    if string match -q -- '*/*' "$base"
        set dir (string replace -r '[^/]*$' '' -- "$base")
        while test -n "$dir"
            test -d (string replace -r '^~' $HOME -- "$dir"); and break
            set dir (string replace -r '[^/]*/$' '' -- "$dir")
        end
        set query (string sub -s (math (string length -- "$dir") + 1) -- "$base")
    end
    set -l flags
    contains -- $words[1] cd pushd rmdir; and set flags -t d
    set -l root (string replace -r '^~' $HOME -- "$dir")
    test -n "$dir"; and set flags $flags -C $root
    set -l picked (__ffind_pick FFIND_COMPLETION_OPTS $flags -- "$query" | string split0)
    if test (count $picked) -gt 0
        __ffind_remember $root$picked
        set -l out
        for p in $picked
            set out $out "$dir"(string escape -- $p)
        end
        commandline -rt -- (string join ' ' -- $out)
    end
    commandline -f repaint
end

set -l __ffind_trigger '**'
set -q FFIND_COMPLETION_TRIGGER; and set __ffind_trigger $FFIND_COMPLETION_TRIGGER
if test -n "$__ffind_trigger"
    if not set -q __ffind_tab_binding; and bind --user \t >/dev/null 2>&1
        set -l now (bind --user \t)
        string match -q -- '*ffind-completion' "$now"; or set -g __ffind_tab_binding (string replace -r '^bind (-M \S+ )?\S+ ' '' -- $now[1])
    end
    bind \t ffind-completion
    bind -M insert \t ffind-completion 2>/dev/null
end

end
