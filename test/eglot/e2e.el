;;; e2e.el --- cb-ls through eglot, end to end  -*- lexical-binding: t; -*-

;; Run by scripts/test-emacs.sh in a real Emacs on a pseudo-terminal
;; (eglot sends didChange from idle timers, which never fire in --batch).
;; It loads the README's elisp exactly as written, points the runs at a
;; scripted model (scriptmodel) through eglot-workspace-configuration, and
;; answers eglot's own prompts (y-or-n-p, completing-read) by feeding keys
;; to the minibuffer, as a user would type them.
;;
;; Environment: CB_LS_README (README.md), E2E_DIR (an empty directory),
;; E2E_LOG (where results go: the terminal is the pseudo-terminal's),
;; SCRIPTMODEL (the scripted model server); cb-ls is on PATH.

(require 'cl-lib)
(require 'subr-x)
(setq native-comp-jit-compilation nil) ; an unpacked Emacs cannot start its compiler
(setq inhibit-message nil)

(defvar e2e-dir (getenv "E2E_DIR"))
(defvar e2e-log (getenv "E2E_LOG"))
(defvar e2e-passed 0)
(defvar e2e-failed 0)
(defvar e2e-keys nil "Keys to type at the next prompts, one string a prompt, in order.")
(defvar e2e-prompts nil "Prompts seen, with their completion candidates, newest first.")

(defun e2e-say (fmt &rest args)
  (let ((line (concat (apply #'format fmt args) "\n")))
    (write-region line nil e2e-log t 'silent)))

;; A prompt records what it showed and gets the keys queued for it.
(add-hook 'minibuffer-setup-hook
          (lambda ()
            (push (list (minibuffer-prompt)
                        (and minibuffer-completion-table
                             (all-completions "" minibuffer-completion-table))
                        (minibuffer-contents))
                  e2e-prompts)
            (when e2e-keys
              (setq unread-command-events
                    (append unread-command-events (listify-key-sequence (pop e2e-keys)))))))

(defun e2e-idle ()
  "Send eglot's pending didChange, as its idle timer does.
The suite runs from -l, outside the command loop, where idle timers never
fire; a user's Emacs sends the change 0.5 s after the edit. Without this
cb-ls never sees an applied edit land."
  (dolist (b (buffer-list))
    (with-current-buffer b
      (when (and (bound-and-true-p eglot--managed-mode) eglot--recent-changes)
        (eglot--signal-textDocument/didChange)))))

(defun e2e-wait (what pred &optional secs)
  "Wait until PRED holds, letting Emacs idle (timers, process output)."
  (let ((deadline (+ (float-time) (or secs 20))))
    (while (and (not (funcall pred)) (< (float-time) deadline))
      ;; A C-g typed at a prompt that a process filter opened quits out
      ;; of the filter; the command loop would catch it, so this does.
      (condition-case nil (sit-for 0.05) (quit nil))
      (e2e-idle))
    (unless (funcall pred) (error "timed out waiting for %s" what))))

(defun e2e-messages ()
  (with-current-buffer (messages-buffer) (buffer-string)))

(defun e2e-check (what ok)
  (unless ok (error "%s" what)))

(defmacro e2e-case (name &rest body)
  (declare (indent 1))
  `(condition-case err
       (let ((start (float-time)))
         (setq e2e-mark (length (e2e-messages)))
         ,@body
         (cl-incf e2e-passed)
         (e2e-say "ok   %s (%.1f s)" ,name (- (float-time) start)))
     (error (cl-incf e2e-failed)
            (e2e-say "FAIL %s: %s" ,name (error-message-string err))
            (e2e-say "  prompts: %S" e2e-prompts)
            (e2e-say "  messages:\n%s" (e2e-messages))
            (e2e-say "  the server's log (stderr):\n%s" (e2e-server-log))
            (e2e-say "  read from cb-ls, not yet handled by jsonrpc:\n%s" (e2e-unread)))))

(defun e2e-server-log ()
  "The end of cb-ls's stderr, as eglot keeps it."
  (let ((b (cl-find-if (lambda (b) (string-match-p (or (getenv "E2E_LOGBUF") "EGLOT.*stderr") (buffer-name b))) (buffer-list))))
    (if (not b) "(none)"
      (with-current-buffer b
        (buffer-substring-no-properties (max (point-min) (- (point-max) 6000)) (point-max))))))

(defun e2e-unread ()
  "What jsonrpc has read from cb-ls but not handled yet: the process
buffer holds a message until its filter gets to it."
  (let ((b (cl-find-if (lambda (b) (string-match-p "^ \\*EGLOT.*output\\*$" (buffer-name b))) (buffer-list))))
    (if (not b) "(no process buffer)"
      (with-current-buffer b
        (let ((text (buffer-substring-no-properties (point) (point-max))))
          (if (string-empty-p text) "(nothing)" text))))))

;;; The scripted model.

(defvar e2e-model-n 0)
(defun e2e-model (turns)
  "Start scriptmodel with TURNS (a JSON string); return (URL . RECORD-FILE)."
  (let* ((n (cl-incf e2e-model-n))
         (script (expand-file-name (format "script%d.json" n) e2e-dir))
         (record (expand-file-name (format "requests%d.jsonl" n) e2e-dir))
         (out (generate-new-buffer (format " *model%d*" n))))
    (write-region (format "{\"turns\": %s}" turns) nil script nil 'silent)
    (make-process :name (format "model%d" n) :buffer out :noquery t
                  :command (list (getenv "SCRIPTMODEL") "--script" script "--record" record))
    (e2e-wait "the model's URL" (lambda () (with-current-buffer out (string-match-p "^http" (buffer-string)))))
    (cons (with-current-buffer out (string-trim (buffer-string))) record)))

(defun e2e-requests (model)
  (let ((f (cdr model)))
    (if (file-exists-p f) (with-temp-buffer (insert-file-contents f) (buffer-string)) "")))

(defun e2e-told (model text)
  "Wait until a request to MODEL carried TEXT (any case): the model
server records a request once it has answered it."
  (e2e-wait (format "the model to be told %S" text)
            (lambda () (let ((case-fold-search t))
                         (string-match-p (regexp-quote text) (e2e-requests model))))
            5))

(defun e2e-use (model)
  "Point the next runs at MODEL (pulled with workspace/configuration)."
  (setq-default eglot-workspace-configuration
                `(:catbuddy (:baseUrl ,(car model) :model "scripted"))))

(defun e2e-question-bound (secs)
  "Set cb-ls's questionTimeout to SECS from the editor's settings, sent
with workspace/didChangeConfiguration as a user's M-x
eglot-signal-didChangeConfiguration sends them."
  (setq-default eglot-workspace-configuration
                `(:catbuddy ,(plist-put (copy-sequence (plist-get (default-value 'eglot-workspace-configuration) :catbuddy))
                                        :questionTimeout secs)))
  (eglot-signal-didChangeConfiguration (eglot-current-server)))

;;; The README's elisp, as written.

(defun e2e-readme-elisp ()
  (with-temp-buffer
    (insert-file-contents (getenv "CB_LS_README"))
    (goto-char (point-min))
    (search-forward "```elisp\n;; ~/.emacs.d/init.el")
    (let ((beg (line-beginning-position)))
      (search-forward "```")
      (buffer-substring-no-properties beg (match-beginning 0)))))

(defun e2e-open (name text)
  "Visit NAME in the project with TEXT, managed by cb-ls through eglot."
  (let ((path (expand-file-name name e2e-dir)))
    (write-region text nil path nil 'silent)
    (find-file path)
    (unless (eglot-current-server)
      (call-interactively #'eglot))
    (e2e-wait "eglot to manage the buffer" (lambda () (bound-and-true-p eglot--managed-mode)))
    (current-buffer)))

(defconst e2e-calc "def add(a, b):\n    return a - b\n")

(defun e2e-fix (&rest keys)
  "Run Agent: Fix This over the buffer from eglot's code action menu.
KEYS answer the menu and then the run's questions; return the titles
the menu offered."
  (apply #'e2e-action "Agent: Fix This" keys))

(defun e2e-action (title &rest keys)
  "Pick TITLE from eglot's code action menu over the buffer; KEYS answer
the run's questions. Return the titles the menu offered."
  (setq e2e-prompts nil e2e-keys (cons (concat title "\r") keys))
  ;; As from the keyboard: eglot pops a mouse menu when the last event
  ;; was not a key.
  (let ((last-nonmenu-event ?\r))
    (eglot-code-actions (point-min) (point-max) nil t))
  (let ((menu (car (last e2e-prompts))))
    (nth 1 menu)))

(defvar e2e-mark 0 "Where *Messages* stood when the case began.")

(defun e2e-shown (text)
  "Wait until TEXT is in *Messages*, said during this case."
  (e2e-wait (format "%S in *Messages*" text)
            (lambda () (string-search text (substring (e2e-messages) (min e2e-mark (length (e2e-messages))))))))

(defun e2e-reply (file text)
  "Reply TEXT to the most recent run on FILE, with the README's catbuddy-reply."
  (let* ((runs (jsonrpc-request (eglot-current-server) :workspace/executeCommand
                                '(:command "catbuddy.listRuns" :arguments [])))
         (run (cl-find-if (lambda (r) (string-search file (or (plist-get r :file) "")))
                          (append runs nil))))
    (e2e-check (format "a run on %s in listRuns: %S" file runs) run)
    (e2e-reading-late (lambda () (catbuddy-reply (plist-get run :runId) text)))))

(defun e2e-reading-late (thunk)
  "Call THUNK while Emacs reads late, as on a loaded machine: after each
message sent, Emacs stops for half a second without reading, so that
cb-ls's answer and what follows it (a scripted run ends at once) come
in one read."
  (let ((stall (lambda (&rest _) (call-process "sleep" nil nil nil "0.5"))))
    (advice-add 'jsonrpc-connection-send :after stall)
    (unwind-protect (funcall thunk)
      (advice-remove 'jsonrpc-connection-send stall))))

;;; The cases.

(defun e2e-run ()
  (let ((elisp (e2e-readme-elisp)))
    (eval (car (read-from-string (concat "(progn " elisp "\n)"))) t))
  (e2e-say "Emacs %s, eglot from %s" emacs-version (locate-library "eglot"))

  (e2e-case "code actions offer the agent; a fix accepted lands in the buffer"
    (let ((model (e2e-model "[{\"tool_calls\": [{\"name\": \"edit_file\", \"args\": {\"path\": \"accept.py\", \"old_string\": \"return a - b\", \"new_string\": \"return a + b\"}}]}, {\"text\": \"add subtracted; it now adds.\"}]")))
      (e2e-use model)
      (e2e-open "accept.py" e2e-calc)
      (let ((titles (e2e-fix "y")))
        (e2e-check (format "the menu offers Fix and Explain: %S" titles)
                   (and (member "Agent: Fix This" titles) (member "Agent: Explain This" titles))))
      (e2e-shown "add subtracted; it now adds.")
      (e2e-check "the edit was asked about with y-or-n-p"
                 (cl-some (lambda (p) (string-match-p "Server wants to" (car p))) e2e-prompts))
      (e2e-check (format "the buffer holds the fix: %S" (buffer-string))
                 (string-search "return a + b" (buffer-string)))
      (e2e-check "cb-ls saw the accepted review land, and kept it"
                 (not (string-match-p "still pending\\|discarded" (e2e-messages))))
      ;; eglot 1.16 and later (Emacs 30's) apply edits to open buffers
      ;; unasked by default: the first run's answer says what to set.
      (e2e-check "the note on eglot-confirm-server-edits comes with an eglot that needs it, only"
                 (eq (and (string-search "eglot-confirm-server-edits" (e2e-messages)) t)
                     (>= emacs-major-version 30)))))

  (e2e-case "a fix refused at the turn's review is discarded; the model hears it on reply"
    (let ((model (e2e-model "[{\"tool_calls\": [{\"name\": \"edit_file\", \"args\": {\"path\": \"refuse.py\", \"old_string\": \"return a - b\", \"new_string\": \"return a + b\"}}]}, {\"text\": \"add subtracted; it now adds.\"}, {\"text\": \"understood, left as it was.\"}]")))
      (e2e-use model)
      (e2e-open "refuse.py" e2e-calc)
      (e2e-fix "n")
      (e2e-shown "you refused its changes, so they were discarded")
      (e2e-check "the buffer is unchanged" (equal (buffer-string) e2e-calc))
      (e2e-check "no offer to keep them later" (not (string-search "still pending" (e2e-messages))))
      (e2e-reply "refuse.py" "why did nothing change?")
      (e2e-shown "understood, left as it was.")
      (e2e-told model "the user discarded")))

  ;; eglot runs the chosen action with a request it waits for; Emacs 28's
  ;; jsonrpc then leaves what came in the same read unread (see
  ;; e2e-reading-late). A run that asks nothing has nothing after its end
  ;; to make Emacs read again, unless cb-ls writes once more.
  (e2e-case "a run that asks nothing is shown though Emacs reads late"
    (let ((model (e2e-model "[{\"text\": \"it subtracts b from a.\"}]")))
      (e2e-use model)
      (e2e-open "explain.py" e2e-calc)
      (e2e-reading-late (lambda () (e2e-action "Agent: Explain This")))
      (e2e-shown "it subtracts b from a.")))

  (e2e-case "a cancel is shown as soon as its answer comes"
    (let ((model (e2e-model "[{\"text\": \"thinking\", \"hang\": true, \"after\": 1}]")))
      (e2e-use model)
      (e2e-open "cancel.py" e2e-calc)
      (e2e-fix)
      (e2e-wait "the model's request" (lambda () (> (length (e2e-requests model)) 0)))
      (catbuddy-cancel-all)
      ;; No further waiting for cb-ls to write: what it sent before its
      ;; answer is all there is to read.
      (e2e-check (format "the cancel is in *Messages* when catbuddy-cancel-all returns")
                 (string-search "Agent: Fix This: cancelled by the user." (e2e-messages)))))

  ;; With pending review a command that writes runs over the run's own
  ;; layer without a question; one that needs the network still asks.
  (e2e-case "the exec question offers Reject first; RET rejects"
    (let ((model (e2e-model "[{\"tool_calls\": [{\"name\": \"exec\", \"args\": {\"command\": \"touch made.txt\", \"network\": true, \"reason\": \"fetch modules\"}}]}, {\"text\": \"did not run it.\"}]")))
      (e2e-use model)
      (e2e-open "exec.py" e2e-calc)
      (e2e-fix "\r")
      (e2e-shown "did not run it.")
      (let ((q (cl-find-if (lambda (p) (string-search "touch made.txt" (car p))) e2e-prompts)))
        (e2e-check (format "the question was asked: %S" e2e-prompts) q)
        (e2e-check (format "Reject comes first (eglot pre-fills the first): %S" q)
                   (equal (car (nth 1 q)) "Reject")))
      (e2e-check "nothing ran" (not (file-exists-p (expand-file-name "made.txt" e2e-dir))))
      (e2e-check "no review of an empty change"
                 (not (cl-some (lambda (p) (string-search "Server wants to edit" (car p))) e2e-prompts)))
      (e2e-told model "the user rejected running this command")))

  (e2e-case "a review left unanswered (C-g) is withdrawn after the bound and discarded"
    (let ((model (e2e-model "[{\"tool_calls\": [{\"name\": \"edit_file\", \"args\": {\"path\": \"quit.py\", \"old_string\": \"return a - b\", \"new_string\": \"return a + b\"}}]}, {\"text\": \"add subtracted; it now adds.\"}, {\"text\": \"nobody answered.\"}]")))
      (e2e-use model)
      (e2e-open "quit.py" e2e-calc)
      (e2e-fix (kbd "C-g"))
      (e2e-shown "no answer to the review of its changes, so they were discarded")
      (e2e-check "the buffer is unchanged" (equal (buffer-string) e2e-calc))
      (e2e-reply "quit.py" "what happened?")
      (e2e-shown "nobody answered.")
      (e2e-told model "no answer from the user")
      (e2e-told model "the user discarded")))

  (e2e-case "a review left unanswered (C-g), then catbuddy-cancel-all: the run ends, its change stays pending"
    (let ((model (e2e-model "[{\"tool_calls\": [{\"name\": \"edit_file\", \"args\": {\"path\": \"walked.py\", \"old_string\": \"return a - b\", \"new_string\": \"return a + b\"}}]}, {\"text\": \"add subtracted; it now adds.\"}]")))
      (e2e-use model)
      (e2e-open "walked.py" e2e-calc)
      ;; Far beyond the case: only the cancel can end the review.
      (e2e-question-bound 600)
      (e2e-fix (kbd "C-g"))
      (e2e-wait "the review to be asked (and dismissed with C-g)"
                (lambda () (cl-some (lambda (p) (string-search "Server wants to edit" (car p))) e2e-prompts)))
      (catbuddy-cancel-all)
      ;; cb-ls answers the cancel after the run's end: nothing to wait for.
      (e2e-check "the cancel says where the change went when catbuddy-cancel-all returns"
                 (let ((said (substring (e2e-messages) e2e-mark)))
                   (and (string-search "cancelled during the review of its changes, so none were applied; they stay pending" said)
                        (string-match-p "cb-ls changes --keep r[0-9a-f]+" said))))
      (e2e-check "the buffer is unchanged" (equal (buffer-string) e2e-calc))
      (let* ((runs (jsonrpc-request (eglot-current-server) :workspace/executeCommand
                                    '(:command "catbuddy.listRuns" :arguments [])))
             (run (cl-find-if (lambda (r) (string-search "walked.py" (or (plist-get r :file) ""))) (append runs nil))))
        (e2e-check (format "the run has ended with its change pending: %S" run)
                   (and run (not (equal (plist-get run :outcome) "running")) (equal (plist-get run :pending) 1)))
        ;; What the message says keeps it, does.
        (let ((out (with-temp-buffer
                     (list (let ((default-directory (file-name-as-directory e2e-dir)))
                             (call-process "cb-ls" nil t nil "changes" "--keep" (plist-get run :runId)))
                           (buffer-string)))))
          (e2e-check (format "cb-ls changes --keep kept it: %S" out) (equal (car out) 0)))
        (e2e-check "the kept change is in the file"
                   (with-temp-buffer
                     (insert-file-contents (expand-file-name "walked.py" e2e-dir))
                     (string-search "return a + b" (buffer-string))))))))
(condition-case err
    (e2e-run)
  (error (cl-incf e2e-failed) (e2e-say "FAIL setup: %s" (error-message-string err))))
(e2e-say "eglot: %d passed, %d failed" e2e-passed e2e-failed)
(kill-emacs (if (= e2e-failed 0) 0 1))
