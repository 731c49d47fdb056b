;;; ffind.el --- Find files with ffind's fuzzy ranking  -*- lexical-binding: t; -*-

;; Version: 0.1
;; Package-Requires: ((emacs "27.1"))
;; Keywords: files, matching

;;; Commentary:

;; `M-x ffind' reads a file name with `completing-read' over the paths
;; ffind ranks for what is typed (ffind does the matching and the ranking;
;; Emacs keeps its order), then visits the file.  RET on a query that is not
;; one of the paths visits ffind's best match for it.  `C-u M-x ffind'
;; includes hidden and ignored files.  The search runs below the current
;; project's root (project.el), else below `default-directory'.
;;
;; `ffind-remember-mode' records the files visited with
;; `ffind --remember FILE', in the background, when ffind has that flag.
;;
;; Setup:
;;   (add-to-list 'load-path "/path/to/ffind/editors/emacs")
;;   (autoload 'ffind "ffind" nil t)

;;; Code:

(require 'seq)
(require 'subr-x)

(defgroup ffind nil
  "Find files with ffind."
  :group 'files
  :prefix "ffind-")

(defcustom ffind-program "ffind"
  "The ffind executable."
  :type 'string)

(defcustom ffind-limit 200
  "How many of ffind's best matches are offered for each query."
  :type 'natnum)

(defcustom ffind-extra-args nil
  "More arguments for every ffind run, e.g. (\"-e\" \"*.min.js\")."
  :type '(repeat string))

(defcustom ffind-root-function #'ffind-default-root
  "A function of no argument returning the folder to search below."
  :type 'function)

(defcustom ffind-remember 'auto
  "Whether `ffind-remember-mode' records visits.
`auto': when the installed ffind has --remember; t: always; nil: never."
  :type '(choice (const auto) (const t) (const nil)))

(defun ffind-default-root ()
  "The current project's root, else `default-directory'."
  (let ((project (and (fboundp 'project-current) (project-current))))
    (expand-file-name
     (cond ((and project (fboundp 'project-root)) (project-root project))
           (project (car (with-no-warnings (project-roots project))))
           (t default-directory)))))

(defun ffind-command (query &optional all)
  "The ffind command (a list) printing the best matches for QUERY.
The paths are NUL-separated.  With ALL, hidden and ignored files are
searched too."
  (append (list ffind-program "-l" (number-to-string ffind-limit) "-0")
          (and all '("-H" "-I"))
          ffind-extra-args
          (and query (not (string-empty-p query)) (list "--" query))))

(defun ffind--error-text (file code)
  "The error ffind wrote to FILE, else a line saying it exited with CODE."
  (with-temp-buffer
    (insert-file-contents file)
    (if (= (buffer-size) 0)
        (format "ffind exited with %s" code)
      (string-trim (buffer-string)))))

(defun ffind-candidates (query &optional dir all)
  "The paths below DIR best matching QUERY, best first, relative to DIR.
DIR defaults to `default-directory'.  With ALL, hidden and ignored files
are searched too."
  (let* ((default-directory (file-name-as-directory
                             (expand-file-name (or dir default-directory))))
         (command (ffind-command query all))
         (coding-system-for-read (or file-name-coding-system
                                     default-file-name-coding-system 'utf-8))
         (errors (make-temp-file "ffind-err")))
    (unwind-protect
        (with-temp-buffer
          (let ((code (condition-case err
                          (apply #'process-file (car command) nil
                                 (list t errors) nil (cdr command))
                        (file-missing
                         (user-error "ffind: cannot run %s: %s" (car command)
                                     (error-message-string err))))))
            (unless (memq code '(0 1))
              (user-error "%s" (ffind--error-text errors code)))
            (split-string (buffer-string) "\0" t)))
      (delete-file errors))))

;;; Completion: ffind's order, not Emacs's

(defun ffind-completion-table (dir &optional all)
  "A completion table of the paths below DIR that ffind ranks for the input.
Its category is `ffind', completed with the `ffind' style: the input is
ffind's query.  ALL: search hidden and ignored files too."
  (let ((last-query nil) (last nil))
    (lambda (string pred action)
      (cond
       ((eq action 'metadata)
        '(metadata (category . ffind)
                   (display-sort-function . identity)
                   (cycle-sort-function . identity)))
       ((eq (car-safe action) 'boundaries) nil)
       (t
        (unless (and last-query (string= string last-query))
          (setq last (ffind-candidates string dir all)
                last-query string))
        (let ((found (if pred (seq-filter pred last) last)))
          (cond ((eq action t) (copy-sequence found))
                ((eq action 'lambda) (and (member string found) t))
                ((null found) nil)
                ((cdr found) string)
                ((string= (car found) string) t)
                (t (car found)))))))))

(defun ffind--style-try (string table pred point)
  "Try-completion of the `ffind' style: STRING stays unless one path is left.
TABLE, PRED and POINT are as for `completion-styles-alist'."
  (let ((result (try-completion string table pred)))
    (cond ((memq result '(t nil)) result)
          ((string= result string) (cons string point))
          (t (cons result (length result))))))

(defun ffind--style-all (string table pred _point)
  "All-completions of the `ffind' style: ffind's paths for STRING, in order.
TABLE and PRED are as for `completion-styles-alist'."
  (let ((all (all-completions string table pred)))
    (and all (nconc all 0))))

(add-to-list 'completion-styles-alist
             '(ffind ffind--style-try ffind--style-all
                     "Paths as ffind ranks them."))
(add-to-list 'completion-category-defaults '(ffind (styles ffind)))

(defun ffind-read-file (&optional dir all)
  "Read a path below DIR with completion over ffind's ranking.
Return it relative to DIR.  RET on a query that is not one of the offered
paths returns ffind's best match for it.  ALL: search hidden and ignored
files too."
  (let* ((dir (file-name-as-directory
               (expand-file-name (or dir default-directory))))
         (table (ffind-completion-table dir all))
         (prompt (format "ffind%s (%s): " (if all "!" "")
                         (abbreviate-file-name dir)))
         (input (minibuffer-with-setup-hook
                    ;; After the setup of icomplete/fido (which choose their
                    ;; own styles): match with ffind's ranking alone.
                    (:append (lambda ()
                               (setq-local completion-styles '(ffind))))
                  (completing-read prompt table nil nil))))
    (cond ((string-empty-p input) (user-error "ffind: nothing chosen"))
          ((member input (all-completions input table)) input)
          (t (or (car (ffind-candidates input dir all))
                 (user-error "ffind: nothing matches %s" input))))))

(defun ffind-open-file (file &optional dir)
  "Visit FILE, relative to DIR (default `default-directory').
Return the file's buffer."
  (find-file (expand-file-name file (or dir default-directory))))

;;;###autoload
(defun ffind (&optional all)
  "Visit a file found by ffind below the folder of `ffind-root-function'.
With a prefix argument ALL, hidden and ignored files are searched too."
  (interactive "P")
  (let ((dir (funcall ffind-root-function)))
    (ffind-open-file (ffind-read-file dir all) dir)))

;;; Memory: `ffind --remember FILE', in the background, never waited for

(defvar ffind--remember-state nil
  "Whether ffind has --remember: nil (unknown), `checking', `yes' or `no'.")

(defvar ffind--remember-waiting nil
  "Files visited while `ffind--remember-state' is being learnt (20 at most).")

(defun ffind--record (file)
  "Record a visit of FILE with `ffind --remember'."
  (let ((default-directory temporary-file-directory))  ; one that exists
    (ignore-errors
      (make-process :name "ffind-remember" :noquery t :connection-type 'pipe
                    :command (list ffind-program "--remember" file)
                    :buffer nil :sentinel #'ignore))))

(defun ffind--learn-support ()
  "Ask ffind in the background whether it has --remember.
Then record the files waiting for the answer."
  (setq ffind--remember-state 'checking)
  (let ((output (generate-new-buffer " *ffind-help*"))
        (default-directory temporary-file-directory))  ; one that exists
    (condition-case nil
        (make-process
         :name "ffind-help" :buffer output :noquery t :connection-type 'pipe
         :command (list ffind-program "--help")
         :sentinel
         (lambda (process _event)
           (unless (process-live-p process)
             (setq ffind--remember-state
                   (if (with-current-buffer output
                         (goto-char (point-min))
                         (search-forward "--remember" nil t))
                       'yes 'no))
             (kill-buffer output)
             (when (eq ffind--remember-state 'yes)
               (mapc #'ffind--record (reverse ffind--remember-waiting)))
             (setq ffind--remember-waiting nil))))
      (error (kill-buffer output)
             (setq ffind--remember-state 'no ffind--remember-waiting nil)))))

(defun ffind-remember-file (file)
  "Record a visit of FILE when ffind can (see `ffind-remember')."
  (cond ((null ffind-remember))
        ((or (eq ffind-remember t) (eq ffind--remember-state 'yes))
         (ffind--record file))
        ((eq ffind--remember-state 'no))
        (t (push file ffind--remember-waiting)
           (when (nthcdr 20 ffind--remember-waiting)
             (setcdr (nthcdr 19 ffind--remember-waiting) nil))
           (unless (eq ffind--remember-state 'checking)
             (ffind--learn-support)))))

(defun ffind--remember-buffer ()
  "Record the current buffer's file, if it is a local file."
  (when (and buffer-file-name (not (file-remote-p buffer-file-name))
             (file-exists-p buffer-file-name))
    (ffind-remember-file (expand-file-name buffer-file-name))))

;;;###autoload
(define-minor-mode ffind-remember-mode
  "Record every file visited with `ffind --remember', when ffind has it."
  :global t
  :group 'ffind
  (if ffind-remember-mode
      (add-hook 'find-file-hook #'ffind--remember-buffer)
    (remove-hook 'find-file-hook #'ffind--remember-buffer)))

(provide 'ffind)
;;; ffind.el ends here
