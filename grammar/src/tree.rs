//! The state tree of one recorded run and the debugger actions on it.
//!
//! The events of a run are the nodes; the states of one call of a function
//! (one *level*: its `call`, `line`s, `exception`s and `return`) are the
//! children of the caller's node that made the call, and the run ends in one
//! exit node. A generator's resumptions are levels of their own, each started
//! by the `call` event Python reports on resumption.
//!
//! Forward actions agree with real pdb (Python 3.11's `bdb`) by construction:
//! each one sets the same stop information pdb's command sets (`stopframe`,
//! `returnframe`, `stoplineno`, a temporary breakpoint) and then walks the
//! recorded events applying bdb's own stop rules (`stop_here`, `break_here`,
//! the generator exceptions of `dispatch_call`, `dispatch_return` and
//! `dispatch_exception`, and which frames bdb traces at all). On ordinary code
//! this is exactly the tree description of the design reference: `step_into`
//! is the next node in time, `step_over` the next node on the same level (up
//! to the caller when the level ends), `step_return` the level's return node.
//! In generators pdb follows the frame, not the level: `step_over` on a
//! `yield` line goes on to the generator's next line in a later resumption.
//!
//! Inverse actions run backwards in time: `inv_step_into` is the exact
//! inverse of `step_into` (into calls backwards through their return, up to
//! the caller's line, shown as an `inv_line_call` node, when a call's first
//! state is left), `inv_step_over` the previous node on the same level,
//! skipping calls, and `inv_step_call` the current level's `call` node.

use std::collections::HashMap;

use crate::action::Action;
use crate::source::Source;
use crate::state::{source_line, Event, EventKind, StateView, Trace};
use crate::trajectory::{TextAction, TextEvent, TextState};

/// A position in the state tree (or in the inverse tree).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Cursor {
    /// The recorded event with this index.
    Event(usize),
    /// The line event with this index, reached backwards from inside a call
    /// it made: the inverse tree's `inv_line_call` node.
    LineCall(usize),
    /// The end of the run.
    Exit,
    /// Before the entry call: where going backwards past it ends.
    ExitEntry,
}

impl Cursor {
    /// The recorded event this position shows, if any.
    pub fn event_index(self) -> Option<usize> {
        match self {
            Cursor::Event(index) | Cursor::LineCall(index) => Some(index),
            Cursor::Exit | Cursor::ExitEntry => None,
        }
    }
}

/// The frame pdb would stop relative to (`Bdb.stopframe`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum StopFrame {
    /// `stopframe is None`: stop anywhere (pdb `step`).
    Anywhere,
    /// A frame of the traced file.
    Frame(u32),
    /// A frame outside the traced file (the caller of the entry call, or
    /// pdb's bottom frame): truthy, but never a stop.
    Outside,
}

/// What a pdb command leaves behind before pdb resumes the program.
#[derive(Clone, Copy, Debug)]
struct StopInfo {
    stop_frame: StopFrame,
    return_frame: Option<u32>,
    /// `stoplineno == -1`: never stop in the stop frame itself.
    no_stop_in_frame: bool,
    breakpoint: Option<u32>,
}

/// The state tree of one run, with precomputed levels.
#[derive(Clone, Debug)]
pub struct StateTree {
    trace: Trace,
    /// The trace's source, split into lines once (no spans: the tree reads
    /// lines only).
    lines: Source,
    /// For each event, the index of the `call` event that starts its level.
    level_start: Vec<usize>,
    /// For each event, the previous event of the same level.
    previous_in_level: Vec<Option<usize>>,
    /// For each `call` event, the caller's event that made the call.
    caller_event: Vec<Option<usize>>,
    /// For each event that starts a level, the `return` event ending it.
    level_end: Vec<Option<usize>>,
    generator_frames: HashMap<u32, bool>,
}

impl StateTree {
    pub fn new(trace: Trace) -> StateTree {
        let count = trace.events.len();
        let mut level_start = vec![0; count];
        let mut previous_in_level = vec![None; count];
        let mut caller_event = vec![None; count];
        let mut level_end = vec![None; count];
        let mut generator_frames = HashMap::new();
        // Open levels: (index of the level's call event, last event of it).
        let mut open: Vec<(usize, usize)> = Vec::new();
        for (index, event) in trace.events.iter().enumerate() {
            generator_frames.insert(event.frame, event.generator);
            if event.kind == EventKind::Call || open.is_empty() {
                caller_event[index] = open.last().map(|&(_, last)| last);
                level_start[index] = index;
                open.push((index, index));
                if event.kind != EventKind::Return {
                    continue;
                }
            } else {
                let top = open.last_mut().expect("open is not empty");
                level_start[index] = top.0;
                previous_in_level[index] = Some(top.1);
                top.1 = index;
            }
            if event.kind == EventKind::Return {
                if let Some((start, _)) = open.pop() {
                    level_end[start] = Some(index);
                }
            }
        }
        StateTree {
            lines: Source::new(trace.source.as_str(), Vec::new()),
            trace,
            level_start,
            previous_in_level,
            caller_event,
            level_end,
            generator_frames,
        }
    }

    pub fn trace(&self) -> &Trace {
        &self.trace
    }

    pub fn events(&self) -> &[Event] {
        &self.trace.events
    }

    /// The first state of the run: the entry call (the exit when the run
    /// recorded nothing).
    pub fn start(&self) -> Cursor {
        if self.trace.events.is_empty() {
            Cursor::Exit
        } else {
            Cursor::Event(0)
        }
    }

    /// The index of the `call` event of the level holding `index`.
    pub fn level_start(&self, index: usize) -> usize {
        self.level_start[index]
    }

    /// The `return` event that ends the level started at `call_index`.
    pub fn level_end(&self, call_index: usize) -> Option<usize> {
        self.level_end[call_index]
    }

    /// The caller's event that made the call starting at `call_index`.
    pub fn caller_event(&self, call_index: usize) -> Option<usize> {
        self.caller_event[call_index]
    }

    /// The previous event of the same level as `index`.
    pub fn previous_in_level(&self, index: usize) -> Option<usize> {
        self.previous_in_level[index]
    }

    /// Applies one action.
    pub fn apply(&self, from: Cursor, action: Action) -> Cursor {
        if action.is_inverse() {
            return self.apply_inverse(from, action);
        }
        match from {
            Cursor::Exit => Cursor::Exit,
            Cursor::ExitEntry => match action {
                // Before the entry call pdb's first stop is the call itself.
                Action::StepInto | Action::StepOver => self.start(),
                _ => match self.start() {
                    Cursor::Event(index) => self.apply_forward(index, action),
                    other => other,
                },
            },
            Cursor::Event(index) | Cursor::LineCall(index) => self.apply_forward(index, action),
        }
    }

    /// Applies a list of actions from `from`, returning every state reached.
    pub fn walk(&self, from: Cursor, actions: &[Action]) -> Vec<Cursor> {
        let mut cursor = from;
        actions
            .iter()
            .map(|&action| {
                cursor = self.apply(cursor, action);
                cursor
            })
            .collect()
    }

    fn stop_info(&self, index: usize, action: Action) -> StopInfo {
        let event = &self.trace.events[index];
        let frame = event.frame;
        let caller = event
            .parent_frame
            .map(StopFrame::Frame)
            .unwrap_or(StopFrame::Outside);
        let plain = StopInfo {
            stop_frame: StopFrame::Anywhere,
            return_frame: None,
            no_stop_in_frame: false,
            breakpoint: None,
        };
        match action {
            // At a return stop pdb's `next` turns into `step` once the frame
            // is gone (the end of `Bdb.dispatch_return`): up to the caller.
            Action::StepOver if event.kind == EventKind::Return => plain,
            Action::StepOver => StopInfo {
                stop_frame: StopFrame::Frame(frame),
                ..plain
            },
            Action::StepReturn if event.generator => StopInfo {
                stop_frame: StopFrame::Frame(frame),
                no_stop_in_frame: true,
                ..plain
            },
            Action::StepReturn => StopInfo {
                stop_frame: caller,
                return_frame: Some(frame),
                ..plain
            },
            Action::Breakpoint(line) => StopInfo {
                stop_frame: StopFrame::Outside,
                no_stop_in_frame: true,
                breakpoint: pdb_accepts_breakpoint(&self.trace.source, line).then_some(line),
                ..plain
            },
            Action::Continue => StopInfo {
                stop_frame: StopFrame::Outside,
                no_stop_in_frame: true,
                ..plain
            },
            _ => plain,
        }
    }

    /// Walks the events after `index` with bdb's stop rules.
    fn apply_forward(&self, index: usize, action: Action) -> Cursor {
        let info = self.stop_info(index, action);
        if action == Action::Continue {
            // pdb's `continue` with no breakpoints removes its trace function.
            return Cursor::Exit;
        }
        let stop_here = |frame: u32| match info.stop_frame {
            StopFrame::Frame(stop) if stop == frame => !info.no_stop_in_frame,
            StopFrame::Anywhere => true,
            _ => false,
        };
        let stop_frame_truthy = info.stop_frame != StopFrame::Anywhere;
        // Whether bdb traces the level started by a call event after `index`.
        // Levels already open at `index` are on the stack, and pdb traces
        // every frame on the stack where it stops.
        let mut traced_levels: HashMap<usize, bool> = HashMap::new();
        for next in index + 1..self.trace.events.len() {
            let event = &self.trace.events[next];
            let frame = event.frame;
            let start = self.level_start[next];
            let stops = match event.kind {
                // bdb's dispatch_call: whether the new level is traced at all,
                // and no stop at a generator's resumption unless stepping.
                EventKind::Call => {
                    let traced = stop_here(frame) || info.breakpoint.is_some();
                    traced_levels.insert(next, traced);
                    traced && !(stop_frame_truthy && event.generator) && stop_here(frame)
                }
                _ if start > index && !traced_levels.get(&start).copied().unwrap_or(true) => false,
                EventKind::Line => stop_here(frame) || info.breakpoint == Some(event.line),
                EventKind::Return => {
                    (stop_here(frame) || info.return_frame == Some(frame))
                        && !(stop_frame_truthy && event.generator)
                }
                EventKind::Exception => {
                    let exception_type = event.exception_type.as_deref();
                    if stop_here(frame) {
                        !(event.generator
                            && exception_type == Some("StopIteration")
                            && event.traceback_is_none)
                    } else {
                        match info.stop_frame {
                            StopFrame::Frame(stop) => {
                                stop != frame
                                    && self.generator_frames.get(&stop).copied().unwrap_or(false)
                                    && matches!(
                                        exception_type,
                                        Some("StopIteration") | Some("GeneratorExit")
                                    )
                            }
                            _ => false,
                        }
                    }
                }
            };
            if stops {
                return Cursor::Event(next);
            }
        }
        Cursor::Exit
    }

    fn apply_inverse(&self, from: Cursor, action: Action) -> Cursor {
        let count = self.trace.events.len();
        match from {
            Cursor::ExitEntry => Cursor::ExitEntry,
            Cursor::Exit => {
                if count == 0 {
                    return Cursor::ExitEntry;
                }
                match action {
                    Action::InvStepInto => Cursor::Event(count - 1),
                    Action::InvStepOver => {
                        // The exit follows the entry call's level.
                        let last_top = (0..count).rev().find(|&index| self.level_start[index] == 0);
                        Cursor::Event(last_top.unwrap_or(count - 1))
                    }
                    _ => Cursor::Event(0),
                }
            }
            Cursor::Event(index) | Cursor::LineCall(index) => {
                let start = self.level_start[index];
                let up = || match self.caller_event[start] {
                    Some(caller) => Cursor::LineCall(caller),
                    None => Cursor::ExitEntry,
                };
                match action {
                    Action::InvStepCall => Cursor::Event(start),
                    // The exact inverse of step_into: the previous event in
                    // time, shown as a line-call when it is the line that
                    // made this call.
                    Action::InvStepInto if index == 0 => Cursor::ExitEntry,
                    Action::InvStepInto
                        if index == start && self.caller_event[start] == Some(index - 1) =>
                    {
                        Cursor::LineCall(index - 1)
                    }
                    Action::InvStepInto => Cursor::Event(index - 1),
                    _ => match self.previous_in_level[index] {
                        Some(previous) => Cursor::Event(previous),
                        None => up(),
                    },
                }
            }
        }
    }

    /// The plain view of a position, as `ndb step --format json` prints it.
    /// The inverse exit before the entry call has no status.
    pub fn view(&self, cursor: Cursor) -> Option<StateView> {
        match cursor {
            Cursor::Event(index) | Cursor::LineCall(index) => {
                Some(StateView::of_event(&self.trace.events[index]))
            }
            Cursor::Exit => Some(StateView::of_exit(&self.trace.exit)),
            Cursor::ExitEntry => None,
        }
    }

    /// The state at `cursor` as the text language shows it.
    pub fn text_state(&self, cursor: Cursor, inverse: bool) -> TextState {
        let empty = |event: TextEvent, inverse: bool| TextState {
            event,
            inverse,
            src: String::new(),
            locals: Vec::new(),
            value: None,
        };
        match cursor {
            Cursor::Exit => empty(
                match self.trace.exit.status {
                    crate::state::ExitStatus::Normal => TextEvent::ExitNormal,
                    crate::state::ExitStatus::Error => TextEvent::ExitError,
                    crate::state::ExitStatus::Never => TextEvent::ExitNever,
                },
                false,
            ),
            Cursor::ExitEntry => empty(TextEvent::ExitEntry, true),
            Cursor::Event(index) | Cursor::LineCall(index) => {
                let event = &self.trace.events[index];
                let line_call = matches!(cursor, Cursor::LineCall(_));
                let (text_event, src) = match event.kind {
                    EventKind::Call => (TextEvent::Call, self.lines.call_line(event.line)),
                    EventKind::Line if line_call => {
                        (TextEvent::LineCall, self.lines.line(event.line))
                    }
                    EventKind::Line => (TextEvent::Line, self.lines.line(event.line)),
                    EventKind::Return => (TextEvent::Return, self.lines.line(event.line)),
                    EventKind::Exception => (TextEvent::Exception, self.lines.line(event.line)),
                };
                let has_locals = matches!(event.kind, EventKind::Call | EventKind::Line);
                TextState {
                    event: text_event,
                    inverse: inverse || line_call,
                    src: src.to_string(),
                    locals: if has_locals {
                        event.locals.clone()
                    } else {
                        Vec::new()
                    },
                    value: if has_locals {
                        None
                    } else {
                        event.value.clone()
                    },
                }
            }
        }
    }

    /// Whether the state reached by `action` from `from` may be written with
    /// delta locals: one step (into or over, either direction) between two
    /// call/line states of the same frame.
    pub fn same_frame_step(&self, from: Cursor, action: Action, to: Cursor) -> bool {
        if !matches!(
            action,
            Action::StepInto | Action::StepOver | Action::InvStepInto | Action::InvStepOver
        ) {
            return false;
        }
        let (Some(a), Some(b)) = (from.event_index(), to.event_index()) else {
            return false;
        };
        let (a, b) = (&self.trace.events[a], &self.trace.events[b]);
        a.frame == b.frame
            && matches!(a.kind, EventKind::Call | EventKind::Line)
            && matches!(b.kind, EventKind::Line)
    }

    /// The action as the text language writes it.
    pub fn text_action(&self, action: Action) -> TextAction {
        crate::text::text_action(&self.lines, action)
    }
}

/// pdb's `checkline`: a breakpoint on a blank line, a comment, a line that
/// starts a triple-quoted string or a line past the end of the file is
/// refused, and the `continue` that follows then runs to the end.
pub fn pdb_accepts_breakpoint(source: &str, line: u32) -> bool {
    let count = source.lines().count() as u32;
    if line == 0 || line > count {
        return false;
    }
    let text = source_line(source, line).trim();
    !(text.is_empty()
        || text.starts_with('#')
        || text.starts_with("\"\"\"")
        || text.starts_with("'''"))
}
