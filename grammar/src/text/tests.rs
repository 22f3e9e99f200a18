//! The text language's printer and parser, with round trips.

use super::*;

fn locals(pairs: &[(&str, &str)]) -> Locals {
    pairs
        .iter()
        .map(|(name, value)| (name.to_string(), value.to_string()))
        .collect()
}

fn state(
    event: TextEvent,
    inverse: bool,
    src: &str,
    pairs: &[(&str, &str)],
    value: Option<&str>,
) -> TextState {
    TextState {
        event,
        inverse,
        src: src.to_string(),
        locals: locals(pairs),
        value: value.map(str::to_string),
    }
}

fn round_trip_state(state: &TextState) {
    let printed = print_state(state, None);
    let (parsed, delta, errors) = parse_state(&printed, None);
    assert_eq!(errors, vec![], "{printed}");
    assert!(!delta);
    let parsed = parsed.unwrap();
    assert_eq!(
        normalize_state(&parsed),
        normalize_state(state),
        "{printed}"
    );
    // The source line comes back as written, indentation included.
    assert_eq!(print_state(&parsed, None), printed);
}

#[test]
fn special_tokens_are_distinct_and_well_formed() {
    for (index, token) in SPECIAL_TOKENS.iter().enumerate() {
        assert!(token.starts_with("<|") && token.ends_with("|>"), "{token}");
        assert!(!SPECIAL_TOKENS[..index].contains(token), "{token}");
    }
    assert_eq!(SPECIAL_TOKENS.len(), 27);
    for shape in SHAPES {
        assert!(SPECIAL_TOKENS.contains(&shape.token));
    }
}

#[test]
fn forward_states_print_as_documented() {
    let call = state(TextEvent::Call, false, "def f(x):", &[("x", "5")], None);
    assert_eq!(
        print_state(&call, None),
        r#"<|call_sep|><|src_sep|>def f(x):<|arg_sep|>{"x": "5"}"#
    );
    let line = state(
        TextEvent::Line,
        false,
        "    n += x",
        &[("x", "5"), ("n", "0")],
        None,
    );
    assert_eq!(
        print_state(&line, Some(&locals(&[("x", "5")]))),
        r#"<|line_sep|><|arg_sep|>{"..": "..", "n": "0"}<|src_sep|>    n += x"#
    );
    let ret = state(TextEvent::Return, false, "    return n", &[], Some("5"));
    assert_eq!(
        print_state(&ret, None),
        r#"<|return_sep|><|src_sep|>    return n<|arg_sep|>"5""#
    );
    let exception = state(
        TextEvent::Exception,
        false,
        "    x = 1 / 0",
        &[],
        Some("ZeroDivisionError('division by zero')"),
    );
    assert_eq!(
        print_state(&exception, None),
        r#"<|exception_sep|><|src_sep|>    x = 1 / 0<|arg_sep|>"ZeroDivisionError('division by zero')""#
    );
    for (event, token) in [
        (TextEvent::ExitNormal, EXIT_NORMAL),
        (TextEvent::ExitError, EXIT_ERROR),
        (TextEvent::ExitNever, EXIT_NEVER),
    ] {
        assert_eq!(
            print_state(&state(event, false, "", &[], None), None),
            token
        );
    }
    for state in [call, line, ret, exception] {
        round_trip_state(&state);
    }
}

#[test]
fn inverse_states_put_the_source_first() {
    let cases = [
        (TextEvent::Call, INV_CALL_SEP),
        (TextEvent::Line, INV_LINE_SEP),
        (TextEvent::LineCall, INV_LINE_CALL_SEP),
    ];
    for (event, token) in cases {
        let s = state(event, true, "  y = g(x)", &[("x", "[1, 2]")], None);
        assert_eq!(
            print_state(&s, None),
            format!(r#"{token}<|src_sep|>  y = g(x)<|arg_sep|>{{"x": "[1, 2]"}}"#)
        );
        round_trip_state(&s);
    }
    for (event, token) in [
        (TextEvent::Return, INV_RETURN_SEP),
        (TextEvent::Exception, INV_EXCEPTION_SEP),
    ] {
        let s = state(event, true, "return y", &[], Some("'a'"));
        assert_eq!(
            print_state(&s, None),
            format!(r#"{token}<|src_sep|>return y<|arg_sep|>"'a'""#)
        );
        round_trip_state(&s);
    }
    let entry = state(TextEvent::ExitEntry, true, "", &[], None);
    assert_eq!(print_state(&entry, None), INV_EXIT_ENTRY);
    round_trip_state(&entry);
}

#[test]
fn impossible_combinations_print_as_their_closest_form() {
    let line_call = state(TextEvent::LineCall, false, "x", &[("a", "1")], Some("v"));
    assert!(print_state(&line_call, None).starts_with(INV_LINE_CALL_SEP));
    round_trip_state(&line_call);
    let exit = state(TextEvent::ExitError, true, "x", &[("a", "1")], Some("v"));
    assert_eq!(print_state(&exit, None), EXIT_ERROR);
    round_trip_state(&exit);
    let entry = state(TextEvent::ExitEntry, false, "", &[], None);
    assert_eq!(print_state(&entry, None), INV_EXIT_ENTRY);
    let ret = state(TextEvent::Return, false, "return", &[("a", "1")], None);
    assert_eq!(
        print_state(&ret, None),
        r#"<|return_sep|><|src_sep|>return<|arg_sep|>"""#
    );
    round_trip_state(&ret);
    assert_eq!(normalize_state(&ret).value.as_deref(), Some(""));
}

#[test]
fn escapes_round_trip() {
    let nasty = [
        "'say \"hi\"'",
        "'back\\\\slash'",
        "line\nbreak\ttab\rreturn",
        "\u{0}\u{1}\u{1f}\u{7f}",
        "é ü 中文 😀 🧑‍🚀",
        "<|frame_sep|> and <|other|> and <| and |>",
        "..",
        "",
    ];
    for value in nasty {
        let s = TextState {
            event: TextEvent::Call,
            inverse: false,
            src: "def f(a):".to_string(),
            locals: vec![
                ("a".to_string(), value.to_string()),
                (value.to_string() + "_k", value.to_string()),
            ],
            value: None,
        };
        let printed = print_state(&s, None);
        assert!(!printed.contains("<|frame_sep|> and"), "{printed}");
        assert!(!printed.contains('\n'), "{printed}");
        round_trip_state(&s);
        let r = state(TextEvent::Return, false, "return a", &[], Some(value));
        round_trip_state(&r);
    }
    let printed = print_state(
        &state(
            TextEvent::Return,
            false,
            "r",
            &[],
            Some("a\"b\\c\nd\u{1}é😀<|x"),
        ),
        None,
    );
    assert_eq!(
        printed,
        r#"<|return_sep|><|src_sep|>r<|arg_sep|>"a\"b\\c\nd\u0001é😀<\u007cx""#
    );
}

#[test]
fn json_reader_accepts_standard_escapes() {
    let (value, errors) = {
        let (state, _, errors) = parse_state(
            r#"<|return_sep|><|src_sep|>r<|arg_sep|> "\/\b\f\u00e9\ud83d\ude00\u0041" "#,
            None,
        );
        (state.and_then(|s| s.value), errors)
    };
    assert_eq!(errors, vec![]);
    assert_eq!(value.as_deref(), Some("/\u{8}\u{c}é😀A"));
}

#[test]
fn a_name_repeated_with_its_own_value_is_read_once() {
    let (state, _, errors) = parse_state(
        r#"<|line_sep|><|arg_sep|>{"values": "[1, 1]", "n": "2", "values": "[1, 1]"}<|src_sep|>    return values"#,
        None,
    );
    assert_eq!(errors, vec![]);
    let read = state.expect("a state").locals;
    assert_eq!(read, locals(&[("values", "[1, 1]"), ("n", "2")]));
}

#[test]
fn json_errors_are_reported_not_guessed() {
    let cases = [
        (r#"{"x": "5""#, "cut off"),
        (r#"{"x": "5"#, "cut off"),
        (r#"{"x": "5\"#, "cut off"),
        (r#"{"x": "\u12"#, "cut off"),
        (r#"{"x": "\q"}"#, "bad escape"),
        (r#"{"x": "\ud800"}"#, "unpaired surrogate"),
        (r#"{"x": "\udc00\udc00"}"#, "unpaired surrogate"),
        (r#"{"x": "\uzzzz"}"#, "four hex digits"),
        (r#"{"x": {"y": "1"}}"#, "expected a JSON string"),
        (r#"{"x": 5}"#, "expected a JSON string"),
        (r#"{"x" "5"}"#, "expected `:`"),
        (r#"{"x": "5" "y": "6"}"#, "expected `,` or `}`"),
        (r#"{"x": "5"} trailing"#, "unexpected"),
        (
            r#"{"x": "5", "x": "6"}"#,
            "twice in the locals, with two values",
        ),
        (r#"{"x": "5", "y": "1", "x": "5 "}"#, "twice"),
        (r#"{"..": "x"}"#, "delta marker"),
        ("{\"x\": \"a\u{1}\"}", "raw control"),
        (r#"["x"]"#, "expected a JSON object"),
        ("", "expected a JSON object"),
    ];
    for (json, expected) in cases {
        let text = format!("<|call_sep|><|src_sep|>def f():<|arg_sep|>{json}");
        let (state, _, errors) = parse_state(&text, None);
        assert_eq!(state, None, "{json}");
        assert_eq!(errors.len(), 1, "{json}");
        assert!(
            errors[0].message.contains(expected),
            "{json}: {}",
            errors[0]
        );
        assert!(errors[0].offset <= text.len());
    }
}

#[test]
fn deltas_print_changed_and_new_names_and_parse_back() {
    let previous = state(
        TextEvent::Line,
        false,
        "a = 1",
        &[("x", "5"), ("n", "0")],
        None,
    );
    let next = state(
        TextEvent::Line,
        false,
        "b = 2",
        &[("x", "5"), ("n", "1"), ("i", "0")],
        None,
    );
    assert!(delta_possible(&previous, &next));
    let printed = print_state(&next, Some(&previous.locals));
    assert_eq!(
        printed,
        r#"<|line_sep|><|arg_sep|>{"..": "..", "n": "1", "i": "0"}<|src_sep|>b = 2"#
    );
    let (parsed, delta, errors) = parse_state(&printed, Some(&previous.locals));
    assert_eq!(errors, vec![]);
    assert!(delta);
    assert_eq!(parsed, Some(next.clone()));

    let unchanged = print_state(&previous, Some(&previous.locals));
    assert_eq!(
        unchanged,
        r#"<|line_sep|><|arg_sep|>{"..": ".."}<|src_sep|>a = 1"#
    );

    // The marker anywhere in the object, and a parsed delta against
    // names in another order, follow the parser's rule.
    let (parsed, delta, _) = parse_state(
        r#"<|frame_sep|><|line_sep|><|arg_sep|>{"i": "9", "..": "..", "x": "6"}<|src_sep|>c<|action_sep|><|step_into|>"#,
        Some(&previous.locals),
    );
    assert!(delta);
    assert_eq!(
        parsed.unwrap().locals,
        locals(&[("x", "6"), ("n", "0"), ("i", "9")])
    );

    // A delta without a base is an error.
    let (parsed, _, errors) = parse_state(&printed, None);
    assert_eq!(parsed, None);
    assert!(errors[0].message.contains("no locals"));
}

#[test]
fn deltas_that_cannot_be_exact_print_in_full() {
    let previous = state(TextEvent::Line, false, "a", &[("x", "5"), ("n", "0")], None);
    let removed = state(TextEvent::Line, false, "b", &[("x", "5")], None);
    let reordered = state(TextEvent::Line, false, "b", &[("n", "0"), ("x", "5")], None);
    let ret = state(TextEvent::Return, false, "return", &[], Some("1"));
    let call = state(TextEvent::Call, false, "def f():", &[], None);
    let marker = state(
        TextEvent::Line,
        false,
        "b",
        &[("x", "5"), ("n", "0"), ("..", "1")],
        None,
    );
    assert!(!delta_possible(&previous, &removed));
    assert!(!delta_possible(&previous, &reordered));
    assert!(!delta_possible(&ret, &call));
    assert!(!delta_possible(&previous, &ret));
    assert!(!delta_possible(&previous, &marker));
    assert!(delta_possible(&call, &previous));
    assert_eq!(
        print_state(&removed, Some(&previous.locals)),
        r#"<|line_sep|><|arg_sep|>{"x": "5"}<|src_sep|>b"#
    );
    assert_eq!(
        print_state(&reordered, Some(&previous.locals)),
        r#"<|line_sep|><|arg_sep|>{"n": "0", "x": "5"}<|src_sep|>b"#
    );
}

#[test]
fn breakpoints_name_lines_by_text_and_occurrence() {
    let source = &crate::Source::new(
        "def f(x):\n    x += 1\n    if x:\n        x += 1\n    return x\r\n",
        Vec::new(),
    );
    assert_eq!(
        breakpoint_action(source, 2),
        TextAction::Breakpoint {
            src: "x += 1".to_string(),
            occurrence: Some(1)
        }
    );
    assert_eq!(
        breakpoint_action(source, 4),
        TextAction::Breakpoint {
            src: "x += 1".to_string(),
            occurrence: Some(2)
        }
    );
    assert_eq!(
        breakpoint_action(source, 5),
        TextAction::Breakpoint {
            src: "return x".to_string(),
            occurrence: None
        }
    );
    assert_eq!(
        breakpoint_action(source, 9),
        TextAction::Breakpoint {
            src: String::new(),
            occurrence: None
        }
    );
    for line in 1..=5 {
        let TextAction::Breakpoint { src, occurrence } = breakpoint_action(source, line) else {
            unreachable!()
        };
        assert_eq!(resolve_breakpoint(source, &src, occurrence), Some(line));
    }
    assert_eq!(resolve_breakpoint(source, "  x += 1 ", None), Some(2));
    assert_eq!(resolve_breakpoint(source, "x += 1", Some(3)), None);
    assert_eq!(resolve_breakpoint(source, "x += 1", Some(0)), None);
    assert_eq!(resolve_breakpoint(source, "y = 2", None), None);

    let action = breakpoint_action(source, 4);
    assert_eq!(print_action(&action), "<|breakpoint|>x += 1<|arg_sep|>2");
    assert_eq!(
        print_action(&breakpoint_action(source, 5)),
        "<|breakpoint|>return x"
    );
}

#[test]
fn actions_print_as_tokens() {
    let actions = [
        (TextAction::StepInto, STEP_INTO),
        (TextAction::StepOver, STEP_OVER),
        (TextAction::StepReturn, STEP_RETURN),
        (TextAction::Continue, CONTINUE),
        (TextAction::InvStepInto, INV_STEP_INTO),
        (TextAction::InvStepOver, INV_STEP_OVER),
        (TextAction::InvStepCall, INV_STEP_CALL),
    ];
    for (action, token) in actions {
        assert_eq!(print_action(&action), token);
        assert_eq!(action_of_token(token), Some(action));
    }
}

fn small_trajectory() -> TextTrajectory {
    let source = "def f(x):\n    n = x\n    n += 1\n    return n".to_string();
    let call = state(TextEvent::Call, false, "def f(x):", &[("x", "1")], None);
    let line1 = state(TextEvent::Line, false, "    n = x", &[("x", "1")], None);
    let line2 = state(
        TextEvent::Line,
        false,
        "    n += 1",
        &[("x", "1"), ("n", "1")],
        None,
    );
    let ret = state(TextEvent::Return, false, "    return n", &[], Some("2"));
    TextTrajectory {
        source,
        start: call,
        steps: vec![
            TextStep {
                action: TextAction::StepInto,
                state: line1,
                delta: true,
            },
            TextStep {
                action: TextAction::StepOver,
                state: line2,
                delta: true,
            },
            TextStep {
                action: TextAction::StepReturn,
                state: ret,
                delta: false,
            },
            TextStep {
                action: TextAction::Continue,
                state: state(TextEvent::ExitNormal, false, "", &[], None),
                delta: false,
            },
        ],
        ended: true,
    }
}

#[test]
fn trajectories_round_trip() {
    let t = small_trajectory();
    let printed = print_trajectory(&t);
    assert!(printed.starts_with("<|trace_context_start|>def f(x):\n"));
    assert!(printed.ends_with("<|exit_normal|><|trace_end|>"));
    let (parsed, errors) = parse_trajectory(&printed);
    assert_eq!(errors, vec![]);
    assert_eq!(normalize_trajectory(&parsed), normalize_trajectory(&t));
    assert!(parsed.steps[0].delta && parsed.steps[1].delta);
    // Printed again it is the same text, byte for byte: a parsed record
    // asked again as a prompt is what the model was trained on.
    assert_eq!(print_trajectory(&parsed), printed);

    // Whitespace between parts is not significant.
    let spaced = printed
        .replace("<|frame_sep|>", " \n <|frame_sep|>\t")
        .replace("<|action_sep|>", "\n<|action_sep|> ");
    let (reparsed, errors) = parse_trajectory(&format!("  \n{spaced}\n\n"));
    assert_eq!(errors, vec![]);
    assert_eq!(reparsed.steps, parsed.steps);
}

#[test]
fn prompt_prefix_is_the_printed_trajectory_up_to_the_next_state() {
    let mut t = small_trajectory();
    t.ended = false;
    let last = t.steps.pop().unwrap();
    let prefix = prompt_prefix(&t, &last.action);
    assert!(prefix.ends_with("<|action_sep|><|continue|>\n<|frame_sep|>"));
    t.steps.push(last.clone());
    assert_eq!(
        prefix + &print_state(&last.state, None),
        print_trajectory(&t)
    );
}

#[test]
fn the_source_is_kept_byte_exact() {
    for source in [
        "",
        "\n",
        "x = 1\n\n",
        "  a\r\n\tb  ",
        "<|arg_sep|> in source",
    ] {
        let t = TextTrajectory {
            source: source.to_string(),
            start: state(TextEvent::ExitNever, false, "", &[], None),
            steps: vec![],
            ended: false,
        };
        let (parsed, errors) = parse_trajectory(&print_trajectory(&t));
        assert_eq!(errors, vec![]);
        assert_eq!(parsed, t);
    }
}

#[test]
fn broken_frames_are_dropped_and_reported_with_resynchronisation() {
    let t = small_trajectory();
    let printed = print_trajectory(&t);
    // Break the first line state's JSON: the step is dropped, and the
    // next (delta) state cannot be read either.
    let broken = printed.replacen(r#"{"..": ".."}"#, r#"{"..": ".."#, 1);
    let (parsed, errors) = parse_trajectory(&broken);
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(errors[0].message.contains("cut off"));
    assert!(errors[1].message.contains("no locals"));
    assert_eq!(parsed.steps.len(), 2);
    assert_eq!(parsed.steps[0].state.event, TextEvent::Return);
    assert!(parsed.ended);

    // A broken action drops only its step.
    let broken = printed.replacen("<|step_over|>", "<|step_over|>junk", 1);
    let (parsed, errors) = parse_trajectory(&broken);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(parsed.steps.len(), 3);
    assert_eq!(&broken[errors[0].offset..errors[0].offset + 4], "junk");
}

#[test]
fn structural_errors_are_reported() {
    let cases = [
        ("", "expected `<|trace_context_start|>`"),
        ("<|trace_context_start|>x", "missing `<|frame_sep|>`"),
        ("<|trace_context_start|>x\n<|frame_sep|>", "event marker"),
        ("<|trace_context_start|>x\n<|frame_sep|><|exit_normal|><|action_sep|><|step_into|>", "without the state"),
        ("<|trace_context_start|>x\n<|frame_sep|><|exit_normal|><|frame_sep|><|exit_normal|>", "missing `<|action_sep|>`"),
        ("<|trace_context_start|>x\n<|frame_sep|><|exit_normal|><|trace_end|><|frame_sep|><|exit_normal|>", "before the last frame"),
        ("<|trace_context_start|>x\n<|frame_sep|><|exit_normal|><|trace_end|>more", "after `<|trace_end|>`"),
        ("<|trace_context_start|>x\n<|frame_sep|><|exit_normal|><|action_sep|><|step_into|><|trace_end|>", "right after an action"),
        ("<|trace_context_start|>x\n<|frame_sep|><|exit_normal|><|action_sep|><|step_into|><|action_sep|><|step_into|>\n<|frame_sep|><|exit_normal|>", "second"),
        ("<|trace_context_start|>x\n<|frame_sep|><|exit_normal|>junk", "unexpected text `junk`"),
        ("<|trace_context_start|>x\n<|frame_sep|><|line_sep|><|src_sep|>a<|arg_sep|>{}", "expected `<|arg_sep|>`"),
        ("<|trace_context_start|>x\n<|frame_sep|><|call_sep|><|src_sep|>a\nb<|arg_sep|>{}", "more than one line"),
        ("<|trace_context_start|>x\n<|frame_sep|><|exit_normal|><|action_sep|><|breakpoint|>a<|arg_sep|>x\n<|frame_sep|><|exit_normal|>", "occurrence"),
        ("<|trace_context_start|>x\n<|frame_sep|><|exit_normal|><|action_sep|><|unknown|>\n<|frame_sep|><|exit_normal|>", "expected an action"),
        ("<|trace_context_start|>x\n<|frame_sep|><|step_into|>", "event marker"),
    ];
    for (text, expected) in cases {
        let (_, errors) = parse_trajectory(text);
        assert!(
            errors.iter().any(|error| error.message.contains(expected)),
            "{text:?}: {errors:?}"
        );
        for error in &errors {
            assert!(error.offset <= text.len(), "{text:?}: {error:?}");
        }
    }
}

#[test]
fn parse_state_ignores_what_follows_the_state() {
    let text =
        r#"<|frame_sep|><|return_sep|><|src_sep|>  return n  <|arg_sep|>"5"<|trace_end|>junk"#;
    let (parsed, delta, errors) = parse_state(text, None);
    assert_eq!(errors, vec![]);
    assert!(!delta);
    assert_eq!(
        parsed,
        Some(state(
            TextEvent::Return,
            false,
            "  return n  ",
            &[],
            Some("5")
        ))
    );
    let (parsed, _, errors) = parse_state("<|exit_never|><|frame_sep|>x", None);
    assert_eq!(errors, vec![]);
    assert_eq!(parsed.unwrap().event, TextEvent::ExitNever);
}

#[test]
fn unknown_tokens_are_text() {
    let text = "<|call_sep|><|src_sep|>x = '<|nope|>'<|arg_sep|>{}";
    let (parsed, _, errors) = parse_state(text, None);
    assert_eq!(errors, vec![]);
    assert_eq!(parsed.unwrap().src, "x = '<|nope|>'");
    assert!(contains_special_token("a<|frame_sep|>b"));
    assert!(!contains_special_token("a<|nope|>b"));
}
