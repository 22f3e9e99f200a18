//! The one suggestion engine behind "suggest inputs" in every front end
//! (`ndb suggest-inputs`, `ndb eval --task input`, the language server's
//! code action, the agent tool): candidates from the model's samples, from
//! the calls the code itself makes (and the front end's entry calls), from
//! the wanted output and the function's literals, from probe runs that
//! show where the function moves items or what it makes of each (worked
//! back to the input, [`probe`]), and from type-directed edits of the best
//! candidates so far toward the output, guided by what their runs
//! returned; each one confirmed or refuted by a real run (the
//! tracer, several at once up to the cores), within a budget of runs and
//! seconds, cancellable. Without running, the model's candidates and the
//! search's first ones (the file's calls, the output, the output with a
//! transformation undone), each checked by the model's own prediction of
//! what it returns ([`check`]): predicted to give the output first, then
//! by votes.

mod check;
pub mod probe;
pub mod source;
pub mod value;

use std::time::{Duration, Instant};

use ndb_grammar::locate::{find_function, FunctionSpan};
use ndb_grammar::ExitStatus;

use crate::debugger::{Cancel, DebugError, Debugger, TracerDebugger};
use crate::ops;
use crate::python::syntax::{Parameter, ParameterKind};
use crate::tracer::trace_source;
pub use check::{describe_prediction, ModelCheck};
use value::{parse_arguments, parse_literal, Ingredients, Kind, Value};

/// How much running a search may do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Budget {
    /// Most candidate runs.
    pub runs: usize,
    /// Wall-clock limit of the whole suggestion (the model's time included).
    pub time: Duration,
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            runs: 32,
            time: Duration::from_secs(10),
        }
    }
}

/// Where a candidate came from.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Origin {
    /// The neural debugger's `inv_step_call` samples.
    Model,
    /// A `>>>` line of a docstring.
    Doctest,
    /// A call of the function elsewhere in the file (a test, a comment, a
    /// script).
    CallInFile,
    /// An entry call the front end found (tree-sitter), with its kind.
    EntryCall(String),
    /// The wanted output itself, as every argument or the first.
    Output,
    /// Values taken from the wanted output and the function's literals, and
    /// fillers (`''`, `[]`, `0`, ...), by the parameters' types.
    Generated,
    /// The output with a common transformation undone (how: `reversed`,
    /// `joined with ','`, `each key repeated by its count`).
    Derived(String),
    /// An edit of an earlier candidate (its argument text).
    Edit(String),
    /// What an earlier candidate's run returned, fed back as the input.
    Returned(String),
    /// A made-up argument run to see what the function does with places or
    /// items ([`probe`]; what it shows).
    Probe(String),
}

impl Origin {
    /// A short description for people: `model`, `edit of 'ab'`.
    pub fn describe(&self) -> String {
        match self {
            Origin::Model => "model".into(),
            Origin::Doctest => "doctest".into(),
            Origin::CallInFile => "call in the file".into(),
            Origin::EntryCall(kind) => format!("entry call ({kind})"),
            Origin::Output => "the output".into(),
            Origin::Generated => "output, literals and fillers".into(),
            Origin::Derived(how) => format!("the output, {how}"),
            Origin::Edit(of) => format!("edit of {}", bounded(of, 60)),
            Origin::Returned(of) => format!("what {} returned", bounded(of, 60)),
            Origin::Probe(what) => format!("a probe of {what}"),
        }
    }

    /// A machine-readable word: `model`, `doctest`, `call`, `entry_call`,
    /// `output`, `generated`, `edit`, `returned`, `probe`.
    pub fn kind(&self) -> &'static str {
        match self {
            Origin::Model => "model",
            Origin::Doctest => "doctest",
            Origin::CallInFile => "call",
            Origin::EntryCall(_) => "entry_call",
            Origin::Output => "output",
            Origin::Generated => "generated",
            Origin::Derived(_) => "derived",
            Origin::Edit(_) => "edit",
            Origin::Returned(_) => "returned",
            Origin::Probe(_) => "probe",
        }
    }
}

fn bounded(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_string()
    } else {
        let mut cut: String = text.chars().take(max).collect();
        cut.push('…');
        cut
    }
}

/// A candidate input a front end knows of (an entry call it found).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Seed {
    /// Argument text, such as `1, [2, 3]`.
    pub input: String,
    pub origin: Origin,
}

impl Seed {
    /// The seed of an entry call `function(...)`; `None` when the call is
    /// not of `function` or has no arguments.
    pub fn from_call(function: &str, call: &str, kind: &str) -> Option<Seed> {
        let rest = call.trim().strip_prefix(function)?.trim_start();
        let inner = rest.strip_prefix('(')?.strip_suffix(')')?.trim();
        (!inner.is_empty()).then(|| Seed {
            input: inner.to_string(),
            origin: Origin::EntryCall(kind.to_string()),
        })
    }
}

/// What is asked.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Request {
    pub function: String,
    /// The wanted return value as Python literal text; `None`: any output
    /// (the model proposes one, and running shows the real one).
    pub output: Option<String>,
    /// Model samples (k); 0 asks the model nothing.
    pub samples: usize,
    pub budget: Budget,
    /// Stop once this many candidates are confirmed.
    pub confirmations: usize,
    /// Most suggestions returned.
    pub max_suggestions: usize,
    /// Candidates the front end found (entry calls).
    pub seeds: Vec<Seed>,
    /// Search beyond the model's candidates: with running, the whole
    /// search; without, its first candidates, checked by the model.
    pub search: bool,
    /// Without running: most candidates the model checks by predicting
    /// what each returns (0: none), within the budget's seconds.
    pub checks: usize,
}

impl Request {
    /// The defaults every front end shares: k = 8 samples, the default
    /// budget, stop at 3 confirmed, at most 8 suggestions, search on, and
    /// without running at most [`DEFAULT_CHECKS`] model checks.
    pub fn new(function: &str, output: Option<&str>) -> Request {
        Request {
            function: function.to_string(),
            output: output
                .map(str::trim)
                .filter(|o| !o.is_empty())
                .map(str::to_string),
            samples: 8,
            budget: Budget::default(),
            confirmations: 3,
            max_suggestions: 8,
            seeds: Vec::new(),
            search: true,
            checks: DEFAULT_CHECKS,
        }
    }
}

/// Without running, the most candidates the model checks by default: the
/// model's own few and the search's first (each check is one model
/// question; the budget's seconds bound them too).
pub const DEFAULT_CHECKS: usize = 6;

/// One suggested input.
#[derive(Clone, Debug, PartialEq)]
pub struct Suggestion {
    /// Argument text as it goes between the parentheses: `1, [2, 3]`.
    pub input: String,
    pub origin: Origin,
    /// How many of the model's samples proposed it (0 when the model did
    /// not), of `samples`.
    pub votes: usize,
    pub samples: usize,
    /// The output it is meant to give: the one asked for, or the one the
    /// model predicted when none was given.
    pub output: Option<String>,
    /// `Some(true)`: a real run gave `output`; `Some(false)`: it gave
    /// something else (`actual`); `None`: not run, or the run could not
    /// decide (a limit, a file that does not load).
    pub verified: Option<bool>,
    /// When run and not confirmed: what it really gave (a repr), or
    /// `raised ...`, or why the run could not decide.
    pub actual: Option<String>,
    /// Without running: what the model predicts it returns (a
    /// prediction, with its confidence; `None` when not checked).
    pub model_check: Option<ModelCheck>,
}

/// Why the search ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// As many confirmed as asked for.
    Confirmed,
    RunsSpent,
    TimeSpent,
    /// No candidate left to try.
    Exhausted,
    /// Nothing was run (running not allowed, or nothing to check against).
    NotRun,
}

impl Stop {
    pub fn as_str(self) -> &'static str {
        match self {
            Stop::Confirmed => "confirmed",
            Stop::RunsSpent => "runs spent",
            Stop::TimeSpent => "time spent",
            Stop::Exhausted => "candidates exhausted",
            Stop::NotRun => "not run",
        }
    }
}

/// The suggestions and how they were found.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    /// Confirmed first, then by model votes, then by how near the output
    /// a run came, then shortest first.
    pub suggestions: Vec<Suggestion>,
    /// Candidate runs made.
    pub runs: usize,
    pub elapsed: Duration,
    /// Distinct inputs the model proposed.
    pub model_candidates: usize,
    pub stop: Stop,
    /// What a user should know: every run raised, runs hit the time limit,
    /// the model failed and the search went on without it.
    pub notes: Vec<String>,
}

/// Why no suggestions could be made at all.
#[derive(Debug, thiserror::Error)]
pub enum SuggestError {
    #[error("no function `{0}` in the source")]
    NoFunction(String),
    #[error("`{0}` takes no arguments: there is no input to suggest (its one call is `{0}()`)")]
    NoParameters(String),
    #[error("the output `{text}` is not a Python literal ({reason}); write it as Python repr text, such as 'abc' for a string or [1, 2] for a list")]
    OutputNotLiteral { text: String, reason: String },
    #[error("nothing to suggest from: no model and no running allowed")]
    NoSource,
    #[error(transparent)]
    Debug(#[from] DebugError),
}

/// A candidate on its way through the search.
#[derive(Clone, Debug)]
struct Candidate {
    input: String,
    /// The arguments as values, when they are all literals (only those are
    /// edited).
    values: Option<Vec<Value>>,
    origin: Origin,
    votes: usize,
    /// The output the model predicted for it (no output asked for).
    predicted: Option<String>,
    outcome: Option<Outcome>,
    /// Without running: the model's prediction of what it returns.
    check: Option<ModelCheck>,
    /// Order of arrival, the last tie-break.
    order: usize,
    /// Runs in the next batch (what a probe pointed to).
    urgent: bool,
}

/// What one run said.
#[derive(Clone, Debug, PartialEq)]
enum Outcome {
    Confirmed,
    /// Returned something else: its repr, parsed when it parses.
    Gave {
        text: String,
        value: Option<Value>,
    },
    Raised(String),
    /// Could not decide: a limit, a file that does not load.
    Undecided(String),
}

impl Candidate {
    fn distance(&self, wanted: Option<&Value>, wanted_text: &str) -> f64 {
        match (&self.outcome, wanted) {
            (Some(Outcome::Confirmed), _) => 0.0,
            (Some(Outcome::Gave { value: Some(v), .. }), Some(wanted)) => {
                value::distance(v, wanted)
            }
            (Some(Outcome::Gave { text, .. }), _) => value::text_distance(text, wanted_text) + 5.0,
            _ => f64::INFINITY,
        }
    }
}

/// The output asked for, read as a Python literal.
fn wanted_output(request: &Request) -> Result<Option<Value>, SuggestError> {
    request
        .output
        .as_ref()
        .map(|text| {
            parse_literal(text).map_err(|error| SuggestError::OutputNotLiteral {
                text: text.clone(),
                reason: error.to_string(),
            })
        })
        .transpose()
}

/// The first candidates: the calls the file itself makes (its doctests
/// included) and the caller's seeds.
fn queue_known_calls(search: &mut Search, source: &str, request: &Request) {
    for (arguments, doctest) in source::calls_in_source(source, &request.function) {
        let origin = if doctest {
            Origin::Doctest
        } else {
            Origin::CallInFile
        };
        search.push(arguments, origin, 0, None);
    }
    for seed in &request.seeds {
        search.push(seed.input.clone(), seed.origin.clone(), 0, None);
    }
}

/// The candidates made from the output: the output as it is, then with the
/// body's growth of a list or a common transformation undone, then the rest
/// of the pools. Returns what the output and the function's literals offer,
/// for the type-directed edits later.
fn queue_pools(
    search: &mut Search,
    source: &str,
    span: &FunctionSpan,
    parameters: &[Parameter],
    wanted: &Value,
) -> Ingredients {
    let positional: Vec<String> = parameters
        .iter()
        .filter(|p| p.kind == ParameterKind::Positional)
        .map(|p| p.name.clone())
        .collect();
    let arity = positional.len().max(1);
    let hints = source::type_hints(source, span, &positional);
    let literals = source::literals(source, span);
    let found = Ingredients::new(wanted, &literals);
    let initial = initial_candidates(wanted, arity, &hints, &literals);
    let derived = initial
        .first()
        .map(|base| derived_candidates(wanted, base, &hints, &found.strings))
        .unwrap_or_default();
    let growths = source::list_growths(source, span, &positional);
    let ungrown = initial
        .first()
        .map(|base| ungrown_candidates(wanted, base, &growths))
        .unwrap_or_default();
    let keys_taken_out = initial
        .first()
        .map(|base| dict_ungrown(wanted, base, &hints))
        .unwrap_or_default();
    let mut initial = initial.into_iter();
    for arguments in initial.by_ref().take(1) {
        let origin = first_round_origin(wanted, &arguments);
        let position = arguments.iter().position(|a| a == wanted);
        if search.push_values(arguments, origin) {
            search.probing = position
                .filter(|_| matches!(wanted, Value::Str(_) | Value::List(_)))
                .map(|position| Probing {
                    base: search.candidates.len() - 1,
                    position,
                    started: false,
                    runs: Vec::new(),
                });
        }
    }
    for (arguments, how) in ungrown {
        search.push_values(arguments, Origin::Derived(how));
    }
    for (arguments, how) in keys_taken_out {
        search.push_values(arguments, Origin::Derived(how));
    }
    if let Some(arguments) = spread_items(wanted, arity, &hints) {
        search.push_values(arguments, Origin::Generated);
    }
    for (arguments, how) in derived {
        search.push_values(arguments, Origin::Derived(how));
    }
    for arguments in initial {
        let origin = first_round_origin(wanted, &arguments);
        search.push_values(arguments, origin);
    }
    found
}

/// Suggests inputs of `request.function` in `source`. `model` proposes
/// candidates (skipped when `None` or `request.samples` is 0); `runner`,
/// when running is allowed, confirms them by real runs and makes the search
/// possible. Runs user code only through `runner`.
pub fn suggest(
    model: Option<&dyn Debugger>,
    runner: Option<&TracerDebugger>,
    source: &str,
    request: &Request,
    cancel: &Cancel,
) -> Result<Report, SuggestError> {
    let started = Instant::now();
    let file = crate::python::PythonFile::parse(source);
    // The file as the model's questions read it, made once: the model's
    // proposals and its checks share it.
    let shared = file.source();
    let spans = shared.spans();
    let index = find_function(spans, &request.function)
        .ok_or_else(|| SuggestError::NoFunction(request.function.clone()))?;
    let span = &spans[index];
    let parameters = ops::parameters_in(&file, &request.function);
    if parameters.is_empty() {
        return Err(SuggestError::NoParameters(request.function.clone()));
    }
    let wanted = wanted_output(request)?;
    let model = model.filter(|_| request.samples > 0);
    if model.is_none() && runner.is_none() {
        return Err(SuggestError::NoSource);
    }
    let mut notes = Vec::new();
    let mut search = Search {
        candidates: Vec::new(),
        wanted: wanted.clone(),
        wanted_text: request.output.clone().unwrap_or_default(),
        probing: None,
    };
    // The model proposes on its own thread while the search runs: on a
    // slow machine k samples can take longer than the whole budget, and the
    // search must not wait for them. Its candidates join the queue (first)
    // when they arrive; it is cancelled when the search ends.
    let model_cancel = Cancel::new();
    let report = std::thread::scope(|scope| {
        let job = model.map(|model| {
            let model_cancel = &model_cancel;
            let shared = &shared;
            scope.spawn(move || {
                ops::suggest_inputs(
                    model,
                    shared,
                    &request.function,
                    request.output.as_deref(),
                    request.samples,
                    model_cancel,
                )
            })
        });
        let mut pending = ModelJob {
            job,
            cancel: &model_cancel,
            outer: cancel,
            candidates: 0,
        };
        let result = (|| {
            let Some(runner) = runner else {
                // Without running the model's answer is all there is, and
                // its failure is the answer; then the model checks its own
                // candidates and the search's first ones.
                pending.wait(&mut search, None)?;
                if let (Some(model), Some(wanted)) = (model, search.wanted.clone()) {
                    if request.checks > 0 {
                        if request.search {
                            queue_known_calls(&mut search, source, request);
                            queue_pools(&mut search, source, span, &parameters, &wanted);
                        }
                        check::check_candidates(
                            model,
                            &shared,
                            request,
                            &mut search,
                            started,
                            cancel,
                            &mut notes,
                        )?;
                    }
                }
                return Ok(search.report(
                    request,
                    Stop::NotRun,
                    0,
                    started,
                    pending.candidates,
                    notes,
                ));
            };
            let wanted = search.wanted.clone();
            let searching = request.search && wanted.is_some();
            let mut ingredients = None;
            if searching {
                queue_known_calls(&mut search, source, request);
                if let Some(wanted) = &wanted {
                    ingredients = Some(queue_pools(&mut search, source, span, &parameters, wanted));
                }
            }
            if !searching {
                // Nothing to search toward (no output asked for): the
                // model's proposals are all there is, so the budget's clock
                // does not cut them off; runs then check what they give.
                pending.wait(&mut search, Some(&mut notes))?;
            }
            let (stop, runs) = run_search(
                &mut search,
                runner,
                source,
                request,
                started,
                &mut pending,
                &mut notes,
                ingredients.as_ref(),
            )?;
            add_run_notes(&search, &mut notes);
            Ok(search.report(request, stop, runs, started, pending.candidates, notes))
        })();
        // Whatever ended the search, the model stops too: a cancelled
        // request returns at once (the engine is told to stop it in the
        // background), so the scope's wait for the model's thread is short.
        model_cancel.cancel();
        result
    });
    // The time reported is the caller's: the wait for the model included.
    report.map(|mut report| {
        report.elapsed = started.elapsed();
        report
    })
}

/// The model's proposals on their way, polled between batches.
struct ModelJob<'scope, 'a> {
    job: Option<std::thread::ScopedJoinHandle<'scope, Result<Vec<ops::Proposal>, DebugError>>>,
    cancel: &'a Cancel,
    outer: &'a Cancel,
    /// Distinct inputs it proposed.
    candidates: usize,
}

impl ModelJob<'_, '_> {
    fn pending(&self) -> bool {
        self.job.is_some()
    }

    /// Takes the proposals in when they have arrived. `notes`: with running,
    /// a failed model is a note and the search goes on; without (`None`),
    /// it is the error.
    fn poll(
        &mut self,
        search: &mut Search,
        notes: Option<&mut Vec<String>>,
    ) -> Result<(), SuggestError> {
        if self.outer.is_cancelled() {
            self.cancel.cancel();
        }
        if !self.job.as_ref().is_some_and(|job| job.is_finished()) {
            return Ok(());
        }
        let Some(job) = self.job.take() else {
            return Ok(());
        };
        let result = job
            .join()
            .unwrap_or_else(|_| Err(DebugError::Panicked("while proposing inputs".into())));
        match result {
            Ok(proposals) => {
                self.candidates = proposals.len();
                for proposal in proposals {
                    search.push(
                        proposal.input,
                        Origin::Model,
                        proposal.votes,
                        proposal.output,
                    );
                }
                Ok(())
            }
            Err(DebugError::Cancelled) if self.outer.is_cancelled() => {
                Err(DebugError::Cancelled.into())
            }
            // Cancelled because the search ended: nothing to add.
            Err(DebugError::Cancelled) => Ok(()),
            Err(error) => match notes {
                Some(notes) => {
                    notes.push(format!("the model proposed nothing: {error}"));
                    Ok(())
                }
                None => Err(error.into()),
            },
        }
    }

    /// Waits for the proposals (or the caller's cancellation).
    fn wait(
        &mut self,
        search: &mut Search,
        mut notes: Option<&mut Vec<String>>,
    ) -> Result<(), SuggestError> {
        while self.pending() {
            self.poll(search, notes.as_deref_mut())?;
            if self.pending() {
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        Ok(())
    }
}

fn add_run_notes(search: &Search, notes: &mut Vec<String>) {
    let outcomes: Vec<&Outcome> = search
        .candidates
        .iter()
        .filter_map(|c| c.outcome.as_ref())
        .collect();
    if outcomes.is_empty() || outcomes.contains(&&Outcome::Confirmed) {
        return;
    }
    let raised = outcomes
        .iter()
        .filter(|o| matches!(o, Outcome::Raised(_)))
        .count();
    let undecided: Vec<&String> = outcomes
        .iter()
        .filter_map(|o| match o {
            Outcome::Undecided(why) => Some(why),
            _ => None,
        })
        .collect();
    if raised == outcomes.len() {
        notes.push(format!(
            "every one of the {raised} runs raised; the function may raise for every input"
        ));
    } else if undecided.len() == outcomes.len() {
        notes.push(format!(
            "no run finished within the limits (the function may never return or print without end): {}",
            undecided[0]
        ));
    }
}

struct Search {
    candidates: Vec<Candidate>,
    wanted: Option<Value>,
    wanted_text: String,
    probing: Option<Probing>,
}

/// The probes of one search ([`probe`]): started when the run of `base`
/// (the first round's first candidate, the output in argument `position`)
/// returns a value of the output's type and length.
struct Probing {
    base: usize,
    position: usize,
    started: bool,
    /// Probe candidates whose runs are not followed up yet.
    runs: Vec<(usize, ProbeKind)>,
}

#[derive(Clone, Copy)]
enum ProbeKind {
    Permutation,
    Map,
}

impl Search {
    /// Adds a candidate unless its input is known; a known one gains the
    /// votes.
    fn push(&mut self, input: String, origin: Origin, votes: usize, predicted: Option<String>) {
        let input = input.trim().to_string();
        if input.is_empty() {
            return;
        }
        let values = parse_arguments(&input).ok();
        // The same values written differently are the same candidate.
        let input = match &values {
            Some(values) if !values.is_empty() && origin != Origin::Model => arguments_text(values),
            _ => input,
        };
        if let Some(existing) = self.candidates.iter_mut().find(|c| c.input == input) {
            existing.votes += votes;
            return;
        }
        let order = self.candidates.len();
        self.candidates.push(Candidate {
            input,
            values,
            origin,
            votes,
            predicted,
            outcome: None,
            check: None,
            order,
            urgent: false,
        });
    }

    fn push_values(&mut self, values: Vec<Value>, origin: Origin) -> bool {
        let input = arguments_text(&values);
        if self.candidates.iter().any(|c| c.input == input) {
            return false;
        }
        let order = self.candidates.len();
        self.candidates.push(Candidate {
            input,
            values: Some(values),
            origin,
            votes: 0,
            predicted: None,
            outcome: None,
            check: None,
            order,
            urgent: false,
        });
        true
    }

    /// Adds a candidate that runs in the next batch; its index when new.
    fn push_urgent(&mut self, values: Vec<Value>, origin: Origin) -> Option<usize> {
        self.push_values(values, origin).then(|| {
            let index = self.candidates.len() - 1;
            self.candidates[index].urgent = true;
            index
        })
    }

    fn confirmed(&self) -> usize {
        self.candidates
            .iter()
            .filter(|c| c.outcome == Some(Outcome::Confirmed))
            .count()
    }

    fn report(
        &self,
        request: &Request,
        stop: Stop,
        runs: usize,
        started: Instant,
        model_candidates: usize,
        notes: Vec<String>,
    ) -> Report {
        let mut ranked: Vec<&Candidate> = self
            .candidates
            .iter()
            // Unrun candidates of the search are not suggestions; the
            // model's are (without running they are all there is). A
            // probe is no attempt at the output: it is one only when its
            // run happened to give it.
            .filter(|c| {
                c.outcome.is_some()
                    || c.origin == Origin::Model
                    || c.check.as_ref().is_some_and(|check| check.gives_output)
            })
            .filter(|c| {
                !matches!(c.origin, Origin::Probe(_)) || c.outcome == Some(Outcome::Confirmed)
            })
            .collect();
        let distance = |c: &Candidate| c.distance(self.wanted.as_ref(), &self.wanted_text);
        // A model check that predicts the output: the surer prediction
        // first (0 for the rest, so only runs and votes order them).
        let predicted = |c: &Candidate| {
            c.check
                .as_ref()
                .filter(|check| check.gives_output)
                .map_or(0.0, |check| check.value().max(f64::MIN_POSITIVE))
        };
        ranked.sort_by(|a, b| {
            let confirmed = |c: &Candidate| c.outcome != Some(Outcome::Confirmed);
            confirmed(a)
                .cmp(&confirmed(b))
                .then(predicted(b).total_cmp(&predicted(a)))
                .then(b.votes.cmp(&a.votes))
                .then(distance(a).total_cmp(&distance(b)))
                .then(a.input.chars().count().cmp(&b.input.chars().count()))
                .then(a.order.cmp(&b.order))
        });
        let suggestions = ranked
            .into_iter()
            .take(request.max_suggestions.max(1))
            .map(|c| {
                let (verified, actual) = match &c.outcome {
                    None => (None, None),
                    Some(Outcome::Confirmed) => (Some(true), None),
                    Some(Outcome::Gave { text, .. }) => (Some(false), Some(text.clone())),
                    Some(Outcome::Raised(what)) => (Some(false), Some(format!("raised {what}"))),
                    Some(Outcome::Undecided(why)) => (None, Some(why.clone())),
                };
                Suggestion {
                    input: c.input.clone(),
                    origin: c.origin.clone(),
                    votes: c.votes,
                    samples: if c.origin == Origin::Model || c.votes > 0 {
                        request.samples
                    } else {
                        0
                    },
                    output: request.output.clone().or_else(|| c.predicted.clone()),
                    verified,
                    actual,
                    model_check: c.check.clone(),
                }
            })
            .collect();
        Report {
            suggestions,
            runs,
            elapsed: started.elapsed(),
            model_candidates,
            stop,
            notes,
        }
    }
}

/// The argument text of `values`.
fn arguments_text(values: &[Value]) -> String {
    values
        .iter()
        .map(Value::to_python)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Most first-round candidates made from the output, literals and fillers.
const MAX_INITIAL: usize = 10;

/// The first round: for each argument a pool of values its type hints
/// allow (the output, its items, what the output offers its type
/// ([`output_material`]), fillers, the function's literals), then
/// the combinations with the best-ranked choices first.
fn initial_candidates(
    wanted: &Value,
    arity: usize,
    hints: &[Vec<Kind>],
    literals: &[Value],
) -> Vec<Vec<Value>> {
    let mut pools: Vec<Vec<Value>> = Vec::new();
    for position in 0..arity {
        let kinds = hints.get(position).cloned().unwrap_or_default();
        let allows = |kind: Kind| kinds.is_empty() || kinds.contains(&kind);
        let mut pool: Vec<Value> = Vec::new();
        if position == 0 || kinds.is_empty() || kinds.contains(&wanted.kind()) {
            pool.push(wanted.clone());
        }
        if matches!(wanted, Value::List(_) | Value::Tuple(_))
            && (kinds.contains(&Kind::Int) || kinds.contains(&Kind::Str))
        {
            pool.extend(
                wanted
                    .elements()
                    .into_iter()
                    .filter(|item| kinds.contains(&item.kind()))
                    .take(2),
            );
        }
        let fillers: Vec<Value> = if kinds.is_empty() {
            vec![
                Value::Str(String::new()),
                Value::List(Vec::new()),
                Value::Int(0),
                Value::Int(1),
            ]
        } else {
            kinds
                .iter()
                .flat_map(|kind| match kind {
                    Kind::Str => vec![Value::Str(String::new()), Value::Str("a".into())],
                    Kind::List => vec![Value::List(Vec::new()), Value::List(vec![Value::Int(1)])],
                    Kind::Int => vec![Value::Int(0), Value::Int(1), Value::Int(-1)],
                    Kind::Dict => vec![Value::Dict(Vec::new())],
                    _ => Vec::new(),
                })
                .collect()
        };
        // A later parameter's plainest value ('', 0, []) comes first: it
        // is often a switch that leaves the first argument as it is.
        if position > 0 && !kinds.is_empty() {
            pool.extend(fillers.first().cloned());
        }
        // Then what the output itself offers a parameter of this type,
        // before the other fillers: the output is usually made of the
        // inputs.
        pool.extend(output_material(wanted, &kinds, literals));
        pool.extend(fillers);
        pool.extend(
            literals
                .iter()
                .filter(|literal| allows(literal.kind()))
                .take(4)
                .cloned(),
        );
        let mut unique: Vec<Value> = Vec::new();
        for value in pool {
            if !unique.contains(&value) {
                unique.push(value);
            }
        }
        pools.push(unique);
    }
    // Index tuples by (sum, max), the way a diagonal walk would.
    let mut combos: Vec<Vec<usize>> = vec![Vec::new()];
    for pool in &pools {
        let mut next = Vec::new();
        for combo in &combos {
            for index in 0..pool.len().min(8) {
                let mut extended = combo.clone();
                extended.push(index);
                next.push(extended);
            }
        }
        combos = next;
        combos.sort_by_key(|c| (c.iter().sum::<usize>(), c.iter().copied().max()));
        combos.truncate(64);
    }
    combos
        .into_iter()
        .take(MAX_INITIAL + 2)
        .map(|combo| {
            combo
                .iter()
                .enumerate()
                .map(|(position, &index)| pools[position][index].clone())
                .collect()
        })
        .take(MAX_INITIAL)
        .collect()
}

/// Values for a parameter of `kinds` (a known type only) read off the
/// output: its string items and keys, its items joined, its numbers'
/// extremes and lengths, its items flattened, its keys and values as lists;
/// for a dict, the output's items as keys, or the output as the value of
/// the function's string literals (`{'n': 9}` for a sum over keys that
/// start with `'n'`).
fn output_material(wanted: &Value, kinds: &[Kind], literals: &[Value]) -> Vec<Value> {
    let mut out = Vec::new();
    let items = wanted.elements();
    // The numbers of the output's sequences one level down, after its own
    // (`([2, 4, 1], [7, 9, 5])` offers 1 and 9).
    let nested_numbers: Vec<i128> = items
        .iter()
        .flat_map(|item| match item {
            Value::List(inner) | Value::Tuple(inner) => inner.clone(),
            other => vec![other.clone()],
        })
        .filter_map(|item| match item {
            Value::Int(n) => Some(n),
            _ => None,
        })
        .collect();
    let strings: Option<Vec<&str>> = match wanted {
        Value::List(items) | Value::Tuple(items) => items
            .iter()
            .map(|item| match item {
                Value::Str(text) => Some(text.as_str()),
                _ => None,
            })
            .collect(),
        _ => None,
    };
    if kinds.contains(&Kind::Str) {
        if let Some(strings) = &strings {
            out.push(Value::Str(strings.concat()));
            out.push(Value::Str(strings.join(" ")));
        }
        if let Value::Dict(pairs) = wanted {
            out.extend(
                pairs
                    .iter()
                    .filter(|(key, _)| key.kind() == Kind::Str)
                    .map(|(key, _)| key.clone())
                    .take(2),
            );
        }
    }
    if kinds.contains(&Kind::Int) {
        if matches!(wanted, Value::List(_) | Value::Tuple(_)) {
            let numbers: Vec<i128> = items
                .iter()
                .filter_map(|item| match item {
                    Value::Int(n) => Some(*n),
                    _ => None,
                })
                .collect();
            out.extend(numbers.first().map(|&n| Value::Int(n)));
            out.extend(numbers.iter().max().map(|&n| Value::Int(n)));
            out.extend(numbers.iter().min().map(|&n| Value::Int(n)));
            out.extend(
                items
                    .first()
                    .and_then(Value::len)
                    .map(|n| Value::Int(n as i128)),
            );
        }
        if let Some(len) = wanted.len() {
            out.push(Value::Int(len as i128));
        }
        if nested_numbers.len() > items.len() {
            out.extend(nested_numbers.iter().min().map(|&n| Value::Int(n)));
            out.extend(nested_numbers.iter().max().map(|&n| Value::Int(n)));
        }
    }
    if kinds.contains(&Kind::List) {
        match wanted {
            Value::Dict(pairs) => {
                out.push(Value::List(pairs.iter().map(|(k, _)| k.clone()).collect()));
                out.push(Value::List(pairs.iter().map(|(_, v)| v.clone()).collect()));
            }
            Value::List(items) if items.iter().all(|item| matches!(item, Value::List(_))) => {
                out.push(Value::List(
                    items.iter().flat_map(Value::elements).collect(),
                ));
            }
            Value::Tuple(items) => {
                out.extend(
                    items
                        .iter()
                        .filter(|item| item.kind() == Kind::List)
                        .take(1)
                        .cloned(),
                );
                // A partition of the input (`lo, hi`): its parts joined.
                let lists: Vec<&Value> = items
                    .iter()
                    .filter(|item| item.kind() == Kind::List)
                    .collect();
                if lists.len() >= 2 {
                    out.push(Value::List(
                        lists.iter().flat_map(|l| l.elements()).collect(),
                    ));
                }
                out.push(Value::List(items.clone()));
            }
            Value::Str(_) => out.push(Value::List(items.clone())),
            Value::Int(_) | Value::Float(_) | Value::Bool(_) => {
                out.push(Value::List(vec![wanted.clone()]));
            }
            _ => {}
        }
    }
    if kinds.contains(&Kind::Dict) && !matches!(wanted, Value::Dict(_)) {
        let keys: Vec<Value> = items
            .iter()
            .filter(|item| matches!(item, Value::Str(_) | Value::Int(_)))
            .cloned()
            .collect();
        if !keys.is_empty() && keys.len() == items.len() && !matches!(wanted, Value::Str(_)) {
            out.push(Value::Dict(
                keys.iter()
                    .map(|key| (key.clone(), Value::Int(1)))
                    .collect(),
            ));
        }
        let filler = Value::Str("a".into());
        let names = literals
            .iter()
            .filter(|literal| matches!(literal, Value::Str(text) if !text.is_empty()))
            .take(2)
            .chain(std::iter::once(&filler));
        for name in names {
            out.push(Value::Dict(vec![(name.clone(), wanted.clone())]));
        }
    }
    out
}

/// The output's items as the arguments, one each, when there are as many
/// as parameters and their types allow them (`f(a, b, c)` returning the
/// three of them sorted, swapped or clamped).
fn spread_items(wanted: &Value, arity: usize, hints: &[Vec<Kind>]) -> Option<Vec<Value>> {
    let items = match wanted {
        Value::List(items) | Value::Tuple(items) if arity >= 2 && items.len() == arity => items,
        _ => return None,
    };
    let allowed = items.iter().enumerate().all(|(position, item)| {
        hints
            .get(position)
            .is_none_or(|kinds| kinds.is_empty() || kinds.contains(&item.kind()))
    });
    allowed.then(|| items.clone())
}

/// Most candidates of the first round that undo a list's growth.
const MAX_UNGROWN: usize = 8;

/// An output list with the body's growth of a list parameter undone
/// ([`source::list_growths`]): for `xs.insert(i, x)` the output without
/// one item, that item and its index (every index in turn, or the one a
/// literal index names); for `xs.append(x)` the output without its last
/// item and that item; for `xs.extend(ys)` the output split in two at
/// each point. The other arguments are as in `base`.
fn ungrown_candidates(
    wanted: &Value,
    base: &[Value],
    growths: &[source::ListGrowth],
) -> Vec<(Vec<Value>, String)> {
    use source::{CallArgument, ListGrowth};
    let Value::List(items) = wanted else {
        return Vec::new();
    };
    if items.is_empty() {
        return Vec::new();
    }
    let set = |arguments: &mut Vec<Value>, at: &CallArgument, value: Value| {
        if let CallArgument::Parameter(position) = at {
            if let Some(slot) = arguments.get_mut(*position) {
                *slot = value;
            }
        }
    };
    let mut per_growth: Vec<Vec<(Vec<Value>, String)>> = Vec::new();
    for growth in growths {
        let mut out = Vec::new();
        match growth {
            ListGrowth::Insert { list, index, item } if *list < base.len() => {
                // Where `insert` put the item in a list one shorter.
                let before = items.len() - 1;
                let positions: Vec<usize> = match index {
                    CallArgument::Int(at) if *at >= 0 => vec![(*at as usize).min(before)],
                    CallArgument::Int(at) => {
                        vec![before.saturating_sub(at.unsigned_abs() as usize)]
                    }
                    _ => (0..items.len()).collect(),
                };
                for at in positions {
                    let mut arguments = base.to_vec();
                    let mut rest = items.clone();
                    let taken = rest.remove(at);
                    arguments[*list] = Value::List(rest);
                    set(&mut arguments, index, Value::Int(at as i128));
                    set(&mut arguments, item, taken);
                    out.push((arguments, format!("with its item {at} taken out (insert)")));
                }
            }
            ListGrowth::Append { list, item } if *list < base.len() => {
                let mut arguments = base.to_vec();
                let mut rest = items.clone();
                let last = rest.pop().expect("not empty");
                arguments[*list] = Value::List(rest);
                set(&mut arguments, item, last);
                out.push((arguments, "without its last item (append)".to_string()));
            }
            ListGrowth::Extend {
                list,
                items: added @ CallArgument::Parameter(_),
            } if *list < base.len() => {
                for at in (0..items.len()).rev() {
                    let mut arguments = base.to_vec();
                    arguments[*list] = Value::List(items[..at].to_vec());
                    set(&mut arguments, added, Value::List(items[at..].to_vec()));
                    out.push((arguments, format!("split after {at} items (extend)")));
                }
            }
            _ => {}
        }
        per_growth.push(out);
    }
    let mut out: Vec<(Vec<Value>, String)> = Vec::new();
    for candidate in round_robin(per_growth) {
        if !out.iter().any(|(arguments, _)| *arguments == candidate.0) {
            out.push(candidate);
        }
    }
    out.truncate(MAX_UNGROWN);
    out
}

/// Most candidates that take a key the body added out of a dict output.
const MAX_DICT_UNGROWN: usize = 3;

/// A dict output with a key the body added (`d[key] = value`,
/// `d.setdefault(key, ...)`) taken out again: the output without one pair
/// (the last first) as the dict parameter, its key and then its value in
/// the other parameters whose types allow them; the rest as in `base`.
fn dict_ungrown(wanted: &Value, base: &[Value], hints: &[Vec<Kind>]) -> Vec<(Vec<Value>, String)> {
    let Value::Dict(pairs) = wanted else {
        return Vec::new();
    };
    if base.len() < 2 || pairs.is_empty() {
        return Vec::new();
    }
    let typed =
        |position: usize, kind: Kind| hints.get(position).is_some_and(|k| k.contains(&kind));
    let Some(dict_at) = (0..base.len())
        .find(|&p| typed(p, Kind::Dict))
        .or_else(|| base.iter().position(|value| value == wanted))
    else {
        return Vec::new();
    };
    let fits = |position: usize, value: &Value| {
        hints
            .get(position)
            .is_none_or(|kinds| kinds.is_empty() || kinds.contains(&value.kind()))
    };
    let others: Vec<usize> = (0..base.len()).filter(|&p| p != dict_at).collect();
    let mut out = Vec::new();
    for at in (0..pairs.len()).rev().take(MAX_DICT_UNGROWN) {
        let (key, value) = &pairs[at];
        let Some(&key_at) = others.iter().find(|&&p| fits(p, key)) else {
            continue;
        };
        let mut rest = pairs.clone();
        rest.remove(at);
        let mut arguments = base.to_vec();
        arguments[dict_at] = Value::Dict(rest);
        arguments[key_at] = key.clone();
        if let Some(&value_at) = others.iter().find(|&&p| p != key_at && fits(p, value)) {
            arguments[value_at] = value.clone();
        }
        out.push((
            arguments,
            format!("without its key {} (added by the body)", key.to_python()),
        ));
    }
    out
}

/// The lists' first items, then their second items, and so on.
fn round_robin<T>(lists: Vec<Vec<T>>) -> Vec<T> {
    let mut iters: Vec<_> = lists.into_iter().map(Vec::into_iter).collect();
    let mut out = Vec::new();
    loop {
        let before = out.len();
        out.extend(iters.iter_mut().filter_map(Iterator::next));
        if out.len() == before {
            return out;
        }
    }
}

/// Most candidates of the first round that undo a transformation.
const MAX_DERIVED: usize = 12;

/// `Output` when every argument is the output itself, else `Generated`.
fn first_round_origin(wanted: &Value, arguments: &[Value]) -> Origin {
    if arguments.iter().all(|a| a == wanted) {
        Origin::Output
    } else {
        Origin::Generated
    }
}

/// The output with common transformations undone ([`value::inverses`]), put
/// in each argument its type hints allow (the first when nothing is
/// known), the other arguments as in `base`; the first argument's first.
/// `separators` are the function's string literals.
fn derived_candidates(
    wanted: &Value,
    base: &[Value],
    hints: &[Vec<Kind>],
    separators: &[String],
) -> Vec<(Vec<Value>, String)> {
    let inverses = value::inverses(wanted, separators);
    let nothing_known = hints.iter().all(Vec::is_empty);
    let mut per_position: Vec<Vec<(Vec<Value>, String)>> = Vec::new();
    for position in 0..base.len() {
        let kinds = hints.get(position).cloned().unwrap_or_default();
        let allows = |kind: Kind| {
            if kinds.is_empty() {
                nothing_known && position == 0
            } else {
                kinds.contains(&kind) || (kind == Kind::Tuple && kinds.contains(&Kind::List))
            }
        };
        per_position.push(
            inverses
                .iter()
                .filter(|(value, _)| allows(value.kind()))
                .map(|(value, how)| {
                    let mut arguments = base.to_vec();
                    arguments[position] = value.clone();
                    (arguments, how.clone())
                })
                .collect(),
        );
    }
    let mut out = round_robin(per_position);
    out.truncate(MAX_DERIVED);
    out
}

/// Runs candidates in batches of up to the cores: first every candidate
/// already known, in order; then, searching, edits of the nearest ones.
/// Returns why it stopped and how many runs it made.
#[allow(clippy::too_many_arguments)]
fn run_search(
    search: &mut Search,
    runner: &TracerDebugger,
    source: &str,
    request: &Request,
    started: Instant,
    model: &mut ModelJob<'_, '_>,
    notes: &mut Vec<String>,
    ingredients: Option<&Ingredients>,
) -> Result<(Stop, usize), SuggestError> {
    let mut cursors: Vec<(usize, std::vec::IntoIter<Vec<Value>>)> = Vec::new();
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, 8);
    let mut runs = 0;
    loop {
        if model.outer.is_cancelled() {
            model.cancel.cancel();
            return Err(DebugError::Cancelled.into());
        }
        model.poll(search, Some(notes))?;
        if search.confirmed() >= request.confirmations.max(1) {
            return Ok((Stop::Confirmed, runs));
        }
        if runs >= request.budget.runs {
            return Ok((Stop::RunsSpent, runs));
        }
        let left = request.budget.time.saturating_sub(started.elapsed());
        if left < Duration::from_millis(50) {
            return Ok((Stop::TimeSpent, runs));
        }
        let room = workers.min(request.budget.runs - runs);
        push_returned_by_output(search);
        follow_probes(search);
        // The model's candidates first (once they have arrived), then what
        // the output gave and what probes pointed to, then the others in
        // order.
        let mut waiting: Vec<usize> = search
            .candidates
            .iter()
            .enumerate()
            .filter(|(_, c)| c.outcome.is_none())
            .map(|(index, _)| index)
            .collect();
        waiting.sort_by_key(|&index| {
            let candidate = &search.candidates[index];
            (
                candidate.origin != Origin::Model,
                !(candidate.urgent || matches!(candidate.origin, Origin::Returned(_))),
                index,
            )
        });
        let mut batch: Vec<usize> = waiting.into_iter().take(room).collect();
        if batch.is_empty() {
            if let Some(ingredients) = ingredients {
                batch = next_edits(search, ingredients, &mut cursors, room);
            }
        }
        if batch.is_empty() {
            if model.pending() {
                // Nothing left but the model's proposals: wait for them.
                std::thread::sleep(Duration::from_millis(20));
                continue;
            }
            return Ok((Stop::Exhausted, runs));
        }
        let mut config = runner.config().clone();
        config.time_limit = config.time_limit.min(left);
        let jobs: Vec<(String, Option<String>)> = batch
            .iter()
            .map(|&index| {
                let candidate = &search.candidates[index];
                let expected = search
                    .wanted
                    .as_ref()
                    .map(|_| search.wanted_text.clone())
                    .or_else(|| candidate.predicted.clone());
                (
                    ops::entry_call(&request.function, &candidate.input),
                    expected,
                )
            })
            .collect();
        let outcomes: Vec<Outcome> = std::thread::scope(|scope| {
            let handles: Vec<_> = jobs
                .iter()
                .map(|(call, expected)| {
                    let config = &config;
                    scope.spawn(move || run_one(source, call, expected.as_deref(), config))
                })
                .collect();
            handles
                .into_iter()
                .map(|handle| {
                    handle
                        .join()
                        .unwrap_or_else(|_| Outcome::Undecided("the run panicked".into()))
                })
                .collect()
        });
        runs += batch.len();
        for (index, outcome) in batch.into_iter().zip(outcomes) {
            search.candidates[index].outcome = Some(outcome);
        }
    }
}

/// What the output itself gave, as the next input (once its run is back):
/// it is the answer whenever the function undoes itself (a swap of case, a
/// transpose, a reverse), so it runs before the rest of the first round.
fn push_returned_by_output(search: &mut Search) {
    let returned: Vec<(Value, String)> = search
        .candidates
        .iter()
        .filter(|c| c.origin == Origin::Output)
        .filter_map(|c| match (&c.values, &c.outcome) {
            (
                Some(values),
                Some(Outcome::Gave {
                    value: Some(value), ..
                }),
            ) if values.len() == 1 && value.kind() == values[0].kind() => {
                Some((value.clone(), c.input.clone()))
            }
            _ => None,
        })
        .collect();
    for (value, of) in returned {
        search.push_values(vec![value], Origin::Returned(of));
    }
}

/// Starts the probes once the first round's first run is back, and turns
/// the probes' runs into candidates ([`probe`]): when the function kept the
/// output's type and length, a run on the output with its items made
/// distinct shows where each item went, and a run on many possible
/// preimages shows what each item became.
fn follow_probes(search: &mut Search) {
    let Some(wanted) = search.wanted.clone() else {
        return;
    };
    let Some(probing) = search.probing.as_mut() else {
        return;
    };
    let (base, position) = (probing.base, probing.position);
    let Some(base_values) = search.candidates[base].values.clone() else {
        search.probing = None;
        return;
    };
    let with = |value: Value| {
        let mut arguments = base_values.clone();
        arguments[position] = value;
        arguments
    };
    let returned = |candidate: &Candidate| match &candidate.outcome {
        Some(Outcome::Gave {
            value: Some(value), ..
        }) => Some(value.clone()),
        _ => None,
    };
    if !probing.started {
        if search.candidates[base].outcome.is_none() {
            return;
        }
        let kept = returned(&search.candidates[base])
            .filter(|value| value.kind() == wanted.kind() && value.len() == wanted.len());
        let Some(kept) = kept else {
            search.probing = None;
            return;
        };
        let mut runs = Vec::new();
        let mut undone = false;
        match probe::distinct(&wanted) {
            // The output's items are distinct: its own run was the probe.
            Some(distinct) if distinct == wanted => {
                if let Some(input) = probe::unpermute(&wanted, &kept, &wanted) {
                    undone = search
                        .push_urgent(
                            with(input),
                            Origin::Derived(
                                "put back in the places its own run moved them to".into(),
                            ),
                        )
                        .is_some();
                }
            }
            Some(distinct) => {
                if let Some(index) = search.push_urgent(
                    with(distinct),
                    Origin::Probe("the places the function moves items to".into()),
                ) {
                    runs.push((index, ProbeKind::Permutation));
                }
            }
            None => {}
        }
        if !undone {
            if let Some(many) = probe::map_probe(&wanted) {
                if let Some(index) = search.push_urgent(
                    with(many),
                    Origin::Probe("what the function makes of each item".into()),
                ) {
                    runs.push((index, ProbeKind::Map));
                }
            }
        }
        if let Some(probing) = search.probing.as_mut() {
            probing.started = true;
            probing.runs = runs;
        }
        return;
    }
    let candidates = &search.candidates;
    let done: Vec<(usize, ProbeKind)> = probing
        .runs
        .iter()
        .filter(|(index, _)| candidates[*index].outcome.is_some())
        .copied()
        .collect();
    probing
        .runs
        .retain(|(index, _)| candidates[*index].outcome.is_none());
    for (index, kind) in done {
        let Some(output) = returned(&search.candidates[index]) else {
            continue;
        };
        let Some(probe_value) = search.candidates[index]
            .values
            .as_ref()
            .and_then(|values| values.get(position).cloned())
        else {
            continue;
        };
        let inputs = match kind {
            ProbeKind::Permutation => probe::unpermute(&probe_value, &output, &wanted)
                .map(|input| {
                    (
                        input,
                        "put back in the places a probe run showed".to_string(),
                    )
                })
                .into_iter()
                .collect(),
            ProbeKind::Map => probe::unmap(&probe_value, &output, &wanted),
        };
        for (input, how) in inputs {
            search.push_urgent(with(input), Origin::Derived(how));
        }
    }
}

/// Most edits taken from one candidate per batch before the next nearest
/// one gets its turn.
const EDITS_PER_TURN: usize = 2;
/// How many of the nearest candidates are edited.
const EDITED_NEAREST: usize = 6;

/// New candidates for a batch: edits of the nearest candidates so far
/// (and, for one argument, what the run returned, as the next input).
fn next_edits(
    search: &mut Search,
    ingredients: &Ingredients,
    cursors: &mut Vec<(usize, std::vec::IntoIter<Vec<Value>>)>,
    room: usize,
) -> Vec<usize> {
    let wanted = search.wanted.clone();
    let mut nearest: Vec<(f64, usize)> = search
        .candidates
        .iter()
        .enumerate()
        .filter(|(_, c)| c.values.is_some() && c.outcome.is_some())
        .map(|(index, c)| (c.distance(wanted.as_ref(), &search.wanted_text), index))
        .collect();
    nearest.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    // Candidates that raised are edited only when nothing returned.
    if nearest.iter().any(|(d, _)| d.is_finite()) {
        nearest.retain(|(d, _)| d.is_finite());
    }
    let mut batch = Vec::new();
    for &(_, index) in nearest.iter().take(EDITED_NEAREST) {
        if batch.len() >= room {
            break;
        }
        if !cursors.iter().any(|(i, _)| *i == index) {
            let edits = candidate_edits(&search.candidates[index], ingredients);
            cursors.push((index, edits.into_iter()));
        }
        let Some(position) = cursors.iter().position(|(i, _)| *i == index) else {
            continue;
        };
        let of = search.candidates[index].input.clone();
        let mut taken = 0;
        while taken < EDITS_PER_TURN && batch.len() < room {
            let Some(values) = cursors[position].1.next() else {
                break;
            };
            let returned = values.len() == 1
                && matches!(&search.candidates[index].outcome, Some(Outcome::Gave { value: Some(v), .. }) if v == &values[0]);
            let origin = if returned {
                Origin::Returned(of.clone())
            } else {
                Origin::Edit(of.clone())
            };
            if search.push_values(values, origin) {
                batch.push(search.candidates.len() - 1);
                taken += 1;
            }
        }
        if taken > 0 {
            // The nearest candidate gets the batch's first turns; the
            // others wait until its edits run out.
            break;
        }
    }
    batch
}

/// The edits of one candidate, its arguments' edits interleaved: first
/// what its run returned as the next input (one argument of the same
/// type), then each argument's edits in turn.
fn candidate_edits(candidate: &Candidate, ingredients: &Ingredients) -> Vec<Vec<Value>> {
    let Some(values) = &candidate.values else {
        return Vec::new();
    };
    let actual = match &candidate.outcome {
        Some(Outcome::Gave {
            value: Some(value), ..
        }) => Some(value),
        _ => None,
    };
    let mut out = Vec::new();
    if let (1, Some(actual)) = (values.len(), actual) {
        if actual.kind() == values[0].kind() {
            out.push(vec![actual.clone()]);
        }
    }
    let per_argument: Vec<Vec<Vec<Value>>> = (0..values.len())
        .map(|position| {
            value::edits(&values[position], actual, ingredients)
                .into_iter()
                .map(|edited| {
                    let mut arguments = values.clone();
                    arguments[position] = edited;
                    arguments
                })
                .collect()
        })
        .collect();
    let longest = per_argument.iter().map(Vec::len).max().unwrap_or(0);
    for step in 0..longest {
        for edits in &per_argument {
            if let Some(edit) = edits.get(step) {
                out.push(edit.clone());
            }
        }
    }
    out
}

/// A Python string literal holding `text`.
fn python_string(text: &str) -> String {
    value::python_str(text)
}

/// Runs `call` in the file's module with the real tracer and compares what
/// it returns with `expected` (Python's `==`). Runs user code.
fn run_one(
    source: &str,
    call: &str,
    expected: Option<&str>,
    config: &crate::tracer::TracerConfig,
) -> Outcome {
    let checked = format!(
        "{source}\n\ndef __ndb_check__():\n    __ndb_value__ = eval({})\n    return (__ndb_value__ == eval({}), __ndb_value__)\n",
        python_string(call),
        python_string(expected.unwrap_or("object()"))
    );
    match trace_source(&checked, "__ndb_check__()", config) {
        Ok(trace) => match trace.exit.status {
            ExitStatus::Normal => {
                let text = trace.exit.value.unwrap_or_default();
                if text.starts_with("(True, ") {
                    return Outcome::Confirmed;
                }
                let returned = text
                    .strip_prefix("(False, ")
                    .and_then(|rest| rest.strip_suffix(')'))
                    .unwrap_or(&text)
                    .to_string();
                let value = parse_literal(&returned).ok();
                Outcome::Gave {
                    text: returned,
                    value,
                }
            }
            ExitStatus::Error => Outcome::Raised(
                trace
                    .exit
                    .value
                    .or(trace.exit.reason)
                    .unwrap_or_else(|| "an exception".into()),
            ),
            ExitStatus::Never => Outcome::Undecided(
                trace
                    .exit
                    .reason
                    .unwrap_or_else(|| "the run hit a limit".into()),
            ),
        },
        Err(error) => Outcome::Undecided(error.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn literal(text: &str) -> Value {
        parse_literal(text).unwrap()
    }

    #[test]
    fn the_output_offers_each_parameter_values_of_its_type() {
        let words = literal("['tea', 'for']");
        assert!(output_material(&words, &[Kind::Str], &[]).contains(&literal("'tea for'")));
        assert!(output_material(&words, &[Kind::Int], &[]).contains(&literal("3")));
        let chunks = literal("[[1, 2], [3]]");
        assert!(output_material(&chunks, &[Kind::List], &[]).contains(&literal("[1, 2, 3]")));
        let table = literal("{'x': 1, 'y': 2}");
        let lists = output_material(&table, &[Kind::List], &[]);
        assert!(lists.contains(&literal("['x', 'y']")) && lists.contains(&literal("[1, 2]")));
        assert!(output_material(&table, &[Kind::Str], &[]).contains(&literal("'x'")));
        // Nothing is offered to a parameter of unknown type.
        assert!(output_material(&words, &[], &[]).is_empty());
    }

    #[test]
    fn a_list_grown_by_the_body_is_ungrown_from_the_output() {
        use source::{CallArgument::*, ListGrowth};
        let base = vec![literal("[1, 2]"), literal("0"), literal("''")];
        let insert = [ListGrowth::Insert {
            list: 0,
            index: Parameter(1),
            item: Parameter(2),
        }];
        let out = ungrown_candidates(&literal("[-4, 4, 1]"), &base, &insert);
        let arguments: Vec<Vec<Value>> = out.into_iter().map(|(a, _)| a).collect();
        assert_eq!(
            arguments,
            [
                vec![literal("[4, 1]"), literal("0"), literal("-4")],
                vec![literal("[-4, 1]"), literal("1"), literal("4")],
                vec![literal("[-4, 4]"), literal("2"), literal("1")],
            ]
        );
        // A literal index names the one place; -1 puts it before the last.
        let at_end = [ListGrowth::Insert {
            list: 0,
            index: Int(-1),
            item: Parameter(2),
        }];
        let out = ungrown_candidates(&literal("[5, 6, 7]"), &base, &at_end);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].0, [literal("[5, 7]"), literal("0"), literal("6")]);
        let append = [ListGrowth::Append {
            list: 0,
            item: Parameter(1),
        }];
        let out = ungrown_candidates(&literal("['a', 'b']"), &base, &append);
        assert_eq!(out[0].0, [literal("['a']"), literal("'b'"), literal("''")]);
        let extend = [ListGrowth::Extend {
            list: 0,
            items: Parameter(2),
        }];
        let out = ungrown_candidates(&literal("[1, 2]"), &base, &extend);
        assert_eq!(
            out.iter().map(|(a, _)| a.clone()).collect::<Vec<_>>(),
            [
                vec![literal("[1]"), literal("0"), literal("[2]")],
                vec![literal("[]"), literal("0"), literal("[1, 2]")],
            ]
        );
        // Nothing to undo in an output that is not a list.
        assert!(ungrown_candidates(&literal("'ab'"), &base, &insert).is_empty());
    }

    #[test]
    fn a_key_the_body_added_to_a_dict_is_taken_out_of_the_output() {
        let wanted = literal("{'a': 1, 'b': 5, 'c': 3}");
        let base = [wanted.clone(), literal("0")];
        let hints = [vec![Kind::Dict], vec![Kind::Str]];
        let found = dict_ungrown(&wanted, &base, &hints);
        assert_eq!(found[0].0, [literal("{'a': 1, 'b': 5}"), literal("'c'")]);
        assert!(found[0].1.contains("'c'"), "{found:?}");
        // The value goes to a third parameter that takes it.
        let base = [wanted.clone(), literal("''"), literal("0")];
        let hints = [vec![Kind::Dict], vec![Kind::Str], vec![Kind::Int]];
        let found = dict_ungrown(&wanted, &base, &hints);
        assert_eq!(
            found[0].0,
            [literal("{'a': 1, 'b': 5}"), literal("'c'"), literal("3")]
        );
        // No dict output, or no other parameter: nothing.
        assert!(dict_ungrown(&literal("[1]"), &base, &hints).is_empty());
        assert!(dict_ungrown(&wanted, std::slice::from_ref(&wanted), &hints).is_empty());
    }

    #[test]
    fn the_output_items_become_the_arguments_when_they_fit() {
        let sorted = literal("(-2, 4, 9)");
        assert_eq!(
            spread_items(&sorted, 3, &[vec![], vec![Kind::Int], vec![]]),
            Some(vec![literal("-2"), literal("4"), literal("9")])
        );
        assert_eq!(spread_items(&sorted, 2, &[]), None);
        assert_eq!(spread_items(&sorted, 3, &[vec![Kind::Str]]), None);
    }
}
