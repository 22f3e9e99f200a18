;;; e2e.el --- ndb-eglot against the real `ndb lsp'  -*- lexical-binding: t; -*-

;; emacs --batch -q -L editor-clients/emacs -l editor-clients/emacs/tests/e2e.el NDB_BIN
;;
;; Run by tests/editors.rs.  Opens a copy of examples/lsp_weighted_sum.py,
;; starts ndb through `ndb-eglot' with the tracer engine (real values, no
;; model), and drives the commands: a neural breakpoint set through the
;; server command, the prediction of the return value, clearing.  Prints
;; one line per check and exits non-zero on a failure.

;;; Code:

(require 'ndb-eglot)
(require 'python)

(defvar ndb-e2e-passed 0)
(defvar ndb-e2e-failed 0)

(defun ndb-e2e-check (name ok &optional detail)
  "Record the check NAME, passed when OK; DETAIL explains a failure."
  (if ok
      (progn (setq ndb-e2e-passed (1+ ndb-e2e-passed)) (princ (format "ok     %s\n" name)))
    (setq ndb-e2e-failed (1+ ndb-e2e-failed))
    (princ (format "FAILED %s%s\n" name (if detail (format ": %S" detail) "")))))

(defun ndb-e2e-finish ()
  "Print the summary and exit with its status."
  (princ (format "emacs e2e: %d passed, %d failed\n" ndb-e2e-passed ndb-e2e-failed))
  (kill-emacs (if (zerop ndb-e2e-failed) 0 1)))

(let* ((here (file-name-directory (or load-file-name buffer-file-name)))
       (repository (expand-file-name "../../../" here))
       (ndb (or (car command-line-args-left)
                (expand-file-name "target/debug/ndb" repository)))
       (directory (make-temp-file "ndb-emacs-" t))
       (file (expand-file-name "lsp_weighted_sum.py" directory)))
  (setq command-line-args-left nil)
  (copy-file (expand-file-name "examples/lsp_weighted_sum.py" repository) file)
  (setq ndb-eglot-program (list ndb "lsp"))
  (setq ndb-eglot-settings '(:engine "tracer" :allowRunningCode t))
  (find-file file)
  (python-mode)
  (condition-case error
      (ndb-eglot)
    (error (ndb-e2e-check "eglot started ndb" nil error) (ndb-e2e-finish)))
  (let ((server (eglot-current-server)))
    (ndb-e2e-check "eglot started ndb for the Python buffer"
                   (and server (cl-typep server 'ndb-eglot-server) (eglot-managed-p)))
    (unless server (ndb-e2e-finish))
    (goto-char (point-min))
    (search-forward "total = total + value * weight")
    (let ((line (1- (line-number-at-pos)))
          (lines (ndb-eglot-toggle-breakpoint)))
      (ndb-e2e-check "ndb-eglot-toggle-breakpoint sets a neural breakpoint through the server"
                     (equal (append lines nil) (list line)) lines)
      (let ((answer (ndb-eglot-predict)))
        (ndb-e2e-check "ndb-eglot-predict answers the return value"
                       (equal (plist-get answer :value) "10") answer)
        (ndb-e2e-check "the answer says the code ran (tracer engine)"
                       (equal (ndb-eglot--describe-prediction answer)
                              "ndb: weighted_sum([1, 2, 3], [3, 2, 1]) (ran) returns 10")
                       (ndb-eglot--describe-prediction answer)))
      (ndb-eglot-choose-entry-call "weighted_sum([5], [7])")
      (ndb-e2e-check "ndb-eglot-choose-entry-call changes what predict runs"
                     (equal (plist-get (ndb-eglot-predict) :value) "35"))
      (ndb-eglot-clear-breakpoints)
      (ndb-e2e-check "clearing leaves no breakpoint: the next toggle sets only this line"
                     (equal (append (ndb-eglot-toggle-breakpoint) nil) (list line))))
    (let ((actions (jsonrpc-request server :textDocument/codeAction
                                    (list :textDocument (eglot--TextDocumentIdentifier)
                                          :range (list :start (list :line 14 :character 0)
                                                       :end (list :line 14 :character 0))
                                          :context (list :diagnostics [])))))
      (ndb-e2e-check "code actions offer the operations (for editors without lenses)"
                     (seq-some (lambda (action) (string-match-p "predict" (plist-get action :title))) actions)
                     actions))
    (eglot-shutdown server))
  (delete-directory directory t)
  (ndb-e2e-finish))

;;; e2e.el ends here
