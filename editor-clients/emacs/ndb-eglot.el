;;; ndb-eglot.el --- ndb lsp, the neural debugger for Python, through Eglot  -*- lexical-binding: t; -*-

;; Version: 0.1.0
;; Package-Requires: ((emacs "28.1") (eglot "1.9"))
;; Keywords: languages, tools, debugging
;; SPDX-License-Identifier: MIT OR Apache-2.0

;;; Commentary:

;; `ndb lsp' shows what pdb would show, predicted without running the
;; code: the predicted locals at neural breakpoints (inlay hints), return
;; values, hovers, and code actions to predict, choose an entry call,
;; suggest inputs and check by running.  The guide is
;; docs/editors/emacs.md in the ndb repository.
;;
;; Eglot manages ONE language server per major mode and project.  ndb can
;; therefore not simply run beside your usual Python server in the same
;; buffer.  This file offers two ways, pick one:
;;
;; 1. ndb as the Python server of the projects you choose:
;;      M-x ndb-eglot     starts ndb for this buffer's project (Eglot asks
;;                        before it replaces a running server); M-x eglot
;;                        (or `eglot-reconnect') goes back to your usual one.
;;    or, for every Python buffer, (ndb-eglot-setup) then `eglot-ensure'.
;;
;; 2. Both servers at once through an LSP multiplexer that Eglot sees as
;;    one server, e.g. rassumfrassum (pip install rassumfrassum):
;;      (setq ndb-eglot-program '("rass" "--" "ndb" "lsp" "--" "pylsp"))
;;    How a multiplexer routes requests decides what reaches ndb; with the
;;    first server getting the requests no other server claims, put ndb
;;    first and check that definitions still come from your Python server.
;;
;; Commands (in a buffer managed by ndb):
;;   M-x ndb-eglot-toggle-breakpoint   neural breakpoint on this line
;;   M-x ndb-eglot-clear-breakpoints   none in this file
;;   M-x ndb-eglot-predict             the function's return value
;;   M-x ndb-eglot-choose-entry-call   (with C-u: type the call)
;;   M-x ndb-eglot-suggest-inputs      (with C-u: for an output you type)
;;   M-x ndb-eglot-insert-suggestion   write a call in as a test
;;   M-x ndb-eglot-check-by-running    needs :allowRunningCode t
;; The same operations are offered as code actions (M-x eglot-code-actions).

;;; Code:

(require 'cl-lib)
(require 'eglot)
(require 'jsonrpc)

(defgroup ndb-eglot nil
  "The ndb neural debugger's language server through Eglot."
  :group 'eglot
  :prefix "ndb-eglot-")

(defcustom ndb-eglot-program '("ndb" "lsp")
  "The command that starts the server: `ndb lsp' and its arguments.
Give the full path when `ndb' is not on `exec-path'."
  :type '(repeat string))

(defcustom ndb-eglot-settings nil
  "The `neuralDebugger' settings (docs/lsp.md), as a plist.
For example (:allowRunningCode t :inlayHints (:maxLength 80)).
Sent as the initialization options when the server starts."
  :type 'plist)

(defcustom ndb-eglot-modes '(python-mode python-ts-mode)
  "The major modes ndb serves."
  :type '(repeat symbol))

(defclass ndb-eglot-server (eglot-lsp-server) ()
  :documentation "The ndb language server.")

(cl-defmethod eglot-initialization-options ((_server ndb-eglot-server))
  "The `neuralDebugger' settings from `ndb-eglot-settings'."
  (list :neuralDebugger (or ndb-eglot-settings (make-hash-table))))

(defun ndb-eglot--entry ()
  "The `eglot-server-programs' entry that starts ndb."
  (cons ndb-eglot-modes (cons 'ndb-eglot-server ndb-eglot-program)))

;;;###autoload
(defun ndb-eglot-setup ()
  "Make ndb the server Eglot starts for Python buffers.
Your other `eglot-server-programs' entries for Python come after it,
so `eglot-ensure' in a Python buffer starts ndb."
  (setq eglot-server-programs
        (cons (ndb-eglot--entry)
              (cl-remove-if (lambda (entry) (equal (car entry) ndb-eglot-modes))
                            eglot-server-programs))))

;;;###autoload
(defun ndb-eglot ()
  "Start ndb for the current Python buffer's project.
Eglot asks first when another server manages the project."
  (interactive)
  (let ((eglot-server-programs (cons (ndb-eglot--entry) eglot-server-programs)))
    (call-interactively #'eglot)))

(defun ndb-eglot--server ()
  "The Eglot server of this buffer, or an error saying how to start ndb."
  (or (eglot-current-server)
      (user-error "No language server manages this buffer: M-x ndb-eglot")))

(defun ndb-eglot--uri ()
  "The document as Eglot named it to the server."
  (plist-get (eglot--TextDocumentIdentifier) :uri))

(defun ndb-eglot--here (&rest more)
  "The argument of a command at point: the document, the 0-based line, MORE."
  (append (list :uri (ndb-eglot--uri) :line (1- (line-number-at-pos))) more))

(defun ndb-eglot-execute (command argument)
  "Run the server COMMAND with its one ARGUMENT (a plist); return the answer."
  (jsonrpc-request (ndb-eglot--server) :workspace/executeCommand
                   (list :command command :arguments (vector argument))))

(defun ndb-eglot--lines-text (lines)
  "LINES (0-based, a vector) as the 1-based numbers a user reads."
  (mapconcat (lambda (line) (number-to-string (1+ line))) lines ", "))

(defun ndb-eglot-toggle-breakpoint ()
  "Toggle a neural breakpoint on the current line."
  (interactive)
  (let ((lines (plist-get (ndb-eglot-execute "ndb.toggleBreakpoint" (ndb-eglot--here)) :lines)))
    (message (if (seq-empty-p lines)
                 "ndb: no neural breakpoints in this file"
               (concat "ndb: neural breakpoints on lines " (ndb-eglot--lines-text lines))))
    lines))

(defun ndb-eglot-set-breakpoints (lines)
  "Replace this file's neural breakpoints with LINES (0-based)."
  (jsonrpc-notify (ndb-eglot--server) :ndb/setBreakpoints
                  (list :uri (ndb-eglot--uri) :lines (vconcat lines))))

(defun ndb-eglot-clear-breakpoints ()
  "Remove every neural breakpoint of this file."
  (interactive)
  (ndb-eglot-set-breakpoints [])
  (message "ndb: no neural breakpoints in this file"))

(defun ndb-eglot--describe-prediction (answer)
  "The sentence for the ANSWER of ndb.predict."
  (let ((call (plist-get answer :entryCall))
        (value (plist-get answer :value)))
    (cond ((plist-get answer :error)
           (format "ndb: no prediction for %s: %s" call (plist-get answer :error)))
          (t
           (format "ndb: %s %s %s %s%s"
                   call
                   (if (eq (plist-get answer :predicted) :json-false) "(ran)" "≈")
                   (if (eq (plist-get answer :raised) t) "raises" "returns")
                   (if (stringp value) value "None")
                   (let ((confidence (plist-get answer :confidence)))
                     (if (and confidence (numberp (plist-get confidence :value)))
                         (format ", confidence %d%% (%s)"
                                 (round (* 100 (plist-get confidence :value)))
                                 (if (equal (plist-get confidence :verdict) "guess")
                                     "a guess" "likely"))
                       "")))))))

(defun ndb-eglot-predict ()
  "Predict the return value of the function at point."
  (interactive)
  (let ((answer (ndb-eglot-execute "ndb.predict" (ndb-eglot--here))))
    (message "%s" (ndb-eglot--describe-prediction answer))
    answer))

(defun ndb-eglot-choose-entry-call (&optional call)
  "Choose the entry call of the function at point.
With a prefix argument, type the CALL; else pick from the server's list."
  (interactive (list (when current-prefix-arg (read-string "Entry call: "))))
  (ndb-eglot-execute "ndb.chooseEntryCall"
                     (apply #'ndb-eglot--here (when call (list :entryCall call)))))

(defun ndb-eglot-suggest-inputs (&optional output)
  "Suggest inputs for the function at point.
With a prefix argument, for an OUTPUT you type (a Python value)."
  (interactive (list (when current-prefix-arg (read-string "Output: "))))
  (ndb-eglot-execute "ndb.suggestInputs"
                     (apply #'ndb-eglot--here (when output (list :output output)))))

(defun ndb-eglot-insert-suggestion (input)
  "Write a call of the function at point with INPUT into the code as a test."
  (interactive (list (read-string "Arguments of the call: ")))
  (ndb-eglot-execute "ndb.insertSuggestion" (ndb-eglot--here :input input)))

(defun ndb-eglot-check-by-running ()
  "Run the entry call of the function at point and compare with the prediction."
  (interactive)
  (ndb-eglot-execute "ndb.checkByRunning" (ndb-eglot--here)))

(defun ndb-eglot--managed ()
  "Switch inlay hints on where ndb manages the buffer (Eglot 1.14+)."
  (when (and (eglot-managed-p)
             (cl-typep (eglot-current-server) 'ndb-eglot-server)
             (fboundp 'eglot-inlay-hints-mode))
    (funcall 'eglot-inlay-hints-mode 1)))

(add-hook 'eglot-managed-mode-hook #'ndb-eglot--managed)

(provide 'ndb-eglot)
;;; ndb-eglot.el ends here
