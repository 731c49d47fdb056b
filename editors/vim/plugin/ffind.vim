" ffind for Vim (8.2 or later, +terminal): `:Ffind [query]` opens the picker (`ffind -i`) in a
" terminal (a popup window where Vim has them) and edits the picked file(s); several picks go to
" the quickfix list.  `:Ffind!` includes hidden and ignored files.  Buffers entered are recorded
" with `ffind --remember FILE` (in the background) when the installed ffind has it.
"
" Options: g:ffind_command ('ffind'), g:ffind_args ([]: extra arguments), g:ffind_popup (1),
" g:ffind_width / g:ffind_height (0.9 / 0.8: fractions of the screen, or columns / lines),
" g:ffind_remember ('auto', 1 or 0), g:ffind_open_quickfix (1).
if exists('g:loaded_ffind') || !has('terminal') || !exists('*job_start')
  finish
endif
let g:loaded_ffind = 1

command! -bang -nargs=* Ffind call s:pick(<q-args>, <bang>0)

augroup ffind_remember
  autocmd!
  autocmd BufEnter * call s:remember(expand('<abuf>'))
augroup END

function! s:opt(name, default) abort
  return get(g:, 'ffind_' . a:name, a:default)
endfunction

" The picker's argument list: ffind -i -0 [-H -I] [args] [-- query].
function! FfindCommand(query, all) abort
  let argv = [s:opt('command', 'ffind'), '-i', '-0']
  if a:all
    let argv += ['-H', '-I']
  endif
  let argv += s:opt('args', [])
  if a:query !=# ''
    let argv += ['--', a:query]
  endif
  return argv
endfunction

function! s:size(value, total) abort
  let n = a:value <= 1 ? float2nr(a:total * a:value) : float2nr(a:value)
  return max([1, min([n, a:total])])
endfunction

function! s:pick(query, all) abort
  let ctx = {'out': tempname(), 'err': tempname(), 'cwd': getcwd(), 'done': 0}
  " The picker draws on the terminal (/dev/tty); its stdout (the picks) and stderr go to files.
  let argv = ['sh', '-c', 'o=$1; e=$2; shift 2; exec "$@" >"$o" 2>"$e"', 'sh', ctx.out, ctx.err]
        \ + FfindCommand(a:query, a:all)
  let popup = s:opt('popup', 1) && exists('*popup_create')
  let opts = {'cwd': ctx.cwd, 'term_name': 'ffind', 'term_finish': 'close',
        \ 'exit_cb': function('s:on_exit', [ctx])}
  if popup
    let opts.hidden = 1
    let opts.term_cols = s:size(s:opt('width', 0.9), &columns - 2)
    let opts.term_rows = s:size(s:opt('height', 0.8), &lines - &cmdheight - 2)
  else
    let opts.term_rows = s:size(s:opt('height', 0.8), &lines - &cmdheight - 2)
  endif
  try
    let buf = term_start(argv, opts)
  catch
    echohl ErrorMsg | echomsg 'ffind: ' . v:exception | echohl None
    return
  endtry
  if buf <= 0
    return
  endif
  if popup
    call popup_create(buf, {'minwidth': opts.term_cols, 'minheight': opts.term_rows,
          \ 'border': [], 'padding': [0, 0, 0, 0]})
  endif
endfunction

" The job has ended; its window closes afterwards, so the picks are edited from a timer.
function! s:on_exit(ctx, job, code) abort
  call timer_start(10, function('s:finish', [a:ctx, a:code]))
endfunction

function! s:finish(ctx, code, timer) abort
  if win_gettype() ==# 'popup' || &buftype ==# 'terminal'
    " the picker's window is still there: try again shortly
    if a:ctx.done < 100
      let a:ctx.done += 1
      call timer_start(10, function('s:finish', [a:ctx, a:code]))
      return
    endif
  endif
  let picked = filereadable(a:ctx.out) ? readfile(a:ctx.out, 'b') : []
  let message = filereadable(a:ctx.err) ? join(readfile(a:ctx.err), "\n") : ''
  call delete(a:ctx.out)
  call delete(a:ctx.err)
  if a:code == 0
    call FfindOpen(s:parse(picked, a:ctx.cwd))
  elseif a:code != 1 && a:code != 130
    echohl ErrorMsg | echomsg message !=# '' ? message : 'ffind exited with ' . a:code | echohl None
  endif
endfunction

" ffind's -0 output (read as lines: a NUL reads as a newline) -> paths relative to Vim's folder.
function! s:parse(lines, cwd) abort
  let picks = []
  for line in a:lines
    for item in split(line, "\n")
      let path = item =~# '^/' ? item : a:cwd . '/' . item
      call add(picks, fnamemodify(path, ':~:.'))
    endfor
  endfor
  return picks
endfunction

" Edit one pick; several go to the quickfix list (the first one edited).
function! FfindOpen(picks) abort
  if empty(a:picks)
    return
  endif
  if len(a:picks) == 1
    execute 'edit' fnameescape(a:picks[0])
    return
  endif
  let items = []
  for path in a:picks
    call add(items, {'filename': path, 'lnum': 1, 'col': 1, 'text': path})
  endfor
  call setqflist([], ' ', {'title': 'ffind', 'items': items})
  cfirst
  if s:opt('open_quickfix', 1)
    botright copen
    wincmd p
  endif
endfunction

" --- memory: `ffind --remember FILE`, started in the background, never waited for

let s:state = {'remember': '', 'waiting': [], 'last': '', 'help': []}

function! s:record(path) abort
  silent! call job_start([s:opt('command', 'ffind'), '--remember', a:path],
        \ {'in_io': 'null', 'out_io': 'null', 'err_io': 'null'})
endfunction

function! s:help_out(channel, line) abort
  call add(s:state.help, a:line)
endfunction

" The help has been read (the channel is closed: all its output was handled).
function! s:help_done(channel) abort
  let s:state.remember = match(s:state.help, '--remember') >= 0 ? 'yes' : 'no'
  let waiting = s:state.waiting
  let s:state.waiting = []
  if s:state.remember ==# 'yes'
    for path in waiting
      call s:record(path)
    endfor
  endif
endfunction

function! s:remember(buf) abort
  let setting = s:opt('remember', 'auto')
  let buf = str2nr(a:buf)
  if setting is 0 || getbufvar(buf, '&buftype') !=# ''
    return
  endif
  let name = fnamemodify(bufname(buf), ':p')
  if bufname(buf) ==# '' || name ==# s:state.last || !filereadable(name)
    return
  endif
  let s:state.last = name
  if setting is 1 || s:state.remember ==# 'yes'
    call s:record(name)
    return
  elseif s:state.remember ==# 'no'
    return
  endif
  call add(s:state.waiting, name)
  if len(s:state.waiting) > 20
    call remove(s:state.waiting, 0)
  endif
  if s:state.remember ==# 'checking'
    return
  endif
  let s:state.remember = 'checking'
  let s:state.help = []
  try
    let job = job_start([s:opt('command', 'ffind'), '--help'], {'in_io': 'null',
          \ 'err_io': 'null', 'out_cb': function('s:help_out'), 'close_cb': function('s:help_done')})
  catch
    let s:state.remember = 'no'
    return
  endtry
  if job_status(job) ==# 'fail'
    let s:state.remember = 'no'
  endif
endfunction
