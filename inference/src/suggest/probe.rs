//! Probe runs: one run on a made-up argument that shows how the function
//! treats positions or items, so that the wanted output can be worked back
//! to its input in one more run.
//!
//! - A **permutation probe** is the wanted string or list with its items
//!   made distinct. When the run returns a rearrangement of the probe (a
//!   rotation, a reverse, evens then odds, an item moved, a case changed),
//!   the same rearrangement undone on the wanted output is the input.
//! - A **map probe** is a string of many characters, or a list of many
//!   items each of which might be a wanted item's preimage (`w`, `-w`,
//!   `w / 2`, the square root, ...). When the run returns as many items as
//!   it was given, item `i` of the output is read as the image of item `i`
//!   of the probe (or of item `n - 1 - i`: a map and a reverse), and each
//!   wanted item is replaced by a preimage.
//!
//! Pure functions over [`Value`]s; the search in `mod.rs` runs them.

use super::value::{swap_case, Value};

/// Most items a probe has.
const MAX_PROBE: usize = 160;

/// Characters a distinct string probe draws on after the wanted text's own:
/// letters (distinct without regard to case), digits, then punctuation.
const POOL: &str =
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&*+-./:;<=>?@^_~";

/// The key two characters of a string probe must not share: letters
/// compare without case, so that a case change still names its position.
fn key(c: char) -> char {
    c.to_lowercase().next().unwrap_or(c)
}

fn same_class(a: char, b: char) -> bool {
    (a.is_lowercase() && b.is_lowercase())
        || (a.is_uppercase() && b.is_uppercase())
        || (a.is_ascii_digit() && b.is_ascii_digit())
        || (a.is_whitespace() && b.is_whitespace())
}

/// `wanted` with its items made distinct, each kept where it already is
/// and otherwise replaced by an unused one of its class (a lower-case
/// letter by a lower-case letter, a number by a number). `None` when
/// `wanted` is no string or list, is empty, or has too many items to make
/// distinct. The wanted value itself when it already is distinct.
pub fn distinct(wanted: &Value) -> Option<Value> {
    match wanted {
        Value::Str(text) => {
            let chars: Vec<char> = text.chars().collect();
            if chars.is_empty() || chars.len() > POOL.len() {
                return None;
            }
            let mut used: Vec<char> = Vec::new();
            let mut out = Vec::with_capacity(chars.len());
            for &c in &chars {
                let chosen = if !used.contains(&key(c)) {
                    c
                } else {
                    let unused = |p: &char| !used.contains(&key(*p));
                    POOL.chars()
                        .filter(unused)
                        .find(|&p| same_class(p, c))
                        .or_else(|| POOL.chars().find(unused))?
                };
                used.push(key(chosen));
                out.push(chosen);
            }
            Some(Value::Str(out.into_iter().collect()))
        }
        Value::List(items) if !items.is_empty() && items.len() <= MAX_PROBE => {
            let mut out: Vec<Value> = Vec::with_capacity(items.len());
            let mut next_int = items
                .iter()
                .filter_map(|item| match item {
                    Value::Int(n) => Some(*n),
                    _ => None,
                })
                .max()
                .unwrap_or(0)
                .saturating_add(1);
            for item in items {
                if !out.contains(item) {
                    out.push(item.clone());
                    continue;
                }
                let fresh = match item {
                    Value::Int(_) => {
                        while out.contains(&Value::Int(next_int))
                            || items.contains(&Value::Int(next_int))
                        {
                            next_int = next_int.saturating_add(1);
                        }
                        Value::Int(next_int)
                    }
                    Value::Str(text) => (0..)
                        .map(|n| Value::Str(format!("{text}{n}")))
                        .find(|v| !out.contains(v) && !items.contains(v))?,
                    _ => return None,
                };
                out.push(fresh);
            }
            Some(Value::List(out))
        }
        _ => None,
    }
}

/// The input that the rearrangement `probe` -> `returned` turns into
/// `wanted`: `Some` when `returned` is `probe`'s items in another order
/// (letters maybe in another case) and as long as `wanted`, and the input
/// differs from `wanted`.
pub fn unpermute(probe: &Value, returned: &Value, wanted: &Value) -> Option<Value> {
    match (probe, returned, wanted) {
        (Value::Str(probe), Value::Str(returned), Value::Str(wanted)) => {
            let probe: Vec<char> = probe.chars().collect();
            let returned: Vec<char> = returned.chars().collect();
            let wanted: Vec<char> = wanted.chars().collect();
            if probe.len() != returned.len() || probe.len() != wanted.len() {
                return None;
            }
            let mut input: Vec<Option<char>> = vec![None; probe.len()];
            for (j, &r) in returned.iter().enumerate() {
                let i =
                    (0..probe.len()).find(|&i| input[i].is_none() && key(probe[i]) == key(r))?;
                let w = wanted[j];
                // The function changed the case at this place: the input
                // has the other case of the wanted letter.
                input[i] = Some(if probe[i] == r { w } else { swap_case(w) });
            }
            let input: String = input.into_iter().collect::<Option<String>>()?;
            let wanted: String = wanted.into_iter().collect();
            (input != wanted).then_some(Value::Str(input))
        }
        (Value::List(probe), Value::List(returned), Value::List(wanted)) => {
            if probe.len() != returned.len() || probe.len() != wanted.len() {
                return None;
            }
            let mut input: Vec<Option<Value>> = vec![None; probe.len()];
            for (j, r) in returned.iter().enumerate() {
                let i = (0..probe.len()).find(|&i| input[i].is_none() && &probe[i] == r)?;
                input[i] = Some(wanted[j].clone());
            }
            let input: Vec<Value> = input.into_iter().collect::<Option<Vec<Value>>>()?;
            (&input != wanted).then_some(Value::List(input))
        }
        _ => None,
    }
}

/// A probe of many possible preimages of `wanted`'s items: its characters
/// and every letter, digit and common sign for a string; for a list, each
/// item's likely preimages (for a number `w`: `w`, `-w`, `w - 1`, `w + 1`,
/// `w / 2`, `w / 3`, its square root, `2w`, then the small numbers; for a
/// string: itself, reversed, in the other case, shortened). `None` when
/// `wanted` is no string or list of numbers or strings.
pub fn map_probe(wanted: &Value) -> Option<Value> {
    match wanted {
        Value::Str(text) if !text.is_empty() => {
            let mut out: Vec<char> = Vec::new();
            for c in text.chars().chain(POOL.chars()).chain(" ,".chars()) {
                if !out.contains(&c) {
                    out.push(c);
                }
            }
            out.truncate(MAX_PROBE);
            Some(Value::Str(out.into_iter().collect()))
        }
        Value::List(items) if !items.is_empty() => {
            let mut out: Vec<Value> = Vec::new();
            let mut push = |value: Value| {
                if !out.contains(&value) && out.len() < MAX_PROBE {
                    out.push(value);
                }
            };
            for item in items {
                match item {
                    Value::Int(w) => {
                        let w = *w;
                        push(Value::Int(w));
                        push(Value::Int(w.saturating_neg()));
                        push(Value::Int(w.saturating_sub(1)));
                        push(Value::Int(w.saturating_add(1)));
                        if w % 2 == 0 {
                            push(Value::Int(w / 2));
                        }
                        if w % 3 == 0 {
                            push(Value::Int(w / 3));
                        }
                        if w >= 0 {
                            let root = (w as f64).sqrt().round() as i128;
                            if root.saturating_mul(root) == w {
                                push(Value::Int(root));
                                push(Value::Int(-root));
                            }
                        }
                        push(Value::Int(w.saturating_mul(2)));
                    }
                    Value::Str(text) => {
                        push(item.clone());
                        push(Value::Str(text.chars().rev().collect()));
                        push(Value::Str(text.to_lowercase()));
                        push(Value::Str(text.to_uppercase()));
                        push(Value::Str(text.chars().map(swap_case).collect()));
                        if let Ok(n) = text.trim().parse::<i128>() {
                            push(Value::Int(n));
                        }
                        let chars: Vec<char> = text.chars().collect();
                        if chars.len() > 1 {
                            push(Value::Str(chars[1..].iter().collect()));
                            push(Value::Str(chars[..chars.len() - 1].iter().collect()));
                        }
                    }
                    _ => return None,
                }
            }
            if items.iter().all(|item| matches!(item, Value::Int(_))) {
                for n in (0..=10).chain(-5..0) {
                    push(Value::Int(n));
                }
            }
            Some(Value::List(out))
        }
        _ => None,
    }
}

/// Inputs a map probe's run points to: each wanted item replaced by an
/// item of the probe whose image it is, reading image `i` as the image of
/// probe item `i` ("mapped item by item") and then as that of probe item
/// `n - 1 - i` ("mapped item by item and reversed"). Only when `returned`
/// has as many items as `probe` and every wanted item has a preimage; an
/// item that is its own image is kept.
pub fn unmap(probe: &Value, returned: &Value, wanted: &Value) -> Vec<(Value, String)> {
    let (probe, returned, wanted_items, text) = match (probe, returned, wanted) {
        (Value::Str(_), Value::Str(_), Value::Str(_)) => (
            probe.elements(),
            returned.elements(),
            wanted.elements(),
            true,
        ),
        (Value::List(p), Value::List(r), Value::List(w)) => {
            (p.clone(), r.clone(), w.clone(), false)
        }
        _ => return Vec::new(),
    };
    if probe.len() != returned.len() || probe.is_empty() {
        return Vec::new();
    }
    let n = probe.len();
    let mut out: Vec<(Value, String)> = Vec::new();
    for reversed in [false, true] {
        let image = |i: usize| &returned[if reversed { n - 1 - i } else { i }];
        let preimage = |w: &Value| -> Option<Value> {
            if let Some(i) = probe.iter().position(|p| p == w) {
                if image(i) == w {
                    return Some(w.clone());
                }
            }
            (0..n).find(|&i| image(i) == w).map(|i| probe[i].clone())
        };
        let Some(mut items) = wanted_items
            .iter()
            .map(preimage)
            .collect::<Option<Vec<Value>>>()
        else {
            continue;
        };
        if reversed {
            items.reverse();
        }
        let input = if text {
            Value::Str(
                items
                    .iter()
                    .map(|item| match item {
                        Value::Str(c) => c.clone(),
                        _ => String::new(),
                    })
                    .collect(),
            )
        } else {
            Value::List(items)
        };
        let how = if reversed {
            "mapped item by item and reversed, as a probe run showed"
        } else {
            "mapped item by item, as a probe run showed"
        };
        if &input != wanted && !out.iter().any(|(v, _)| v == &input) {
            out.push((input, how.to_string()));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::value::parse_literal;
    use super::*;

    fn v(text: &str) -> Value {
        parse_literal(text).unwrap()
    }

    #[test]
    fn a_distinct_probe_keeps_distinct_items_and_classes() {
        assert_eq!(distinct(&v("'abc'")), Some(v("'abc'")));
        let probe = distinct(&v("'Mmohamt'")).unwrap();
        let Value::Str(text) = &probe else { panic!() };
        let keys: Vec<char> = text.chars().map(key).collect();
        let mut unique = keys.clone();
        unique.dedup();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), keys.len(), "{text}");
        assert!(text.starts_with('M'), "{text}");
        assert!(text.chars().skip(1).all(char::is_lowercase), "{text}");
        assert_eq!(distinct(&v("[3, 3, 1]")), Some(v("[3, 4, 1]")));
        assert_eq!(distinct(&v("['a', 'a']")), Some(v("['a', 'a0']")));
        assert_eq!(distinct(&v("5")), None);
    }

    #[test]
    fn a_rearrangement_of_the_probe_is_undone_on_the_output() {
        // f(s) = even positions, then odd ones in lower case.
        let probe = v("'Abcdefg'");
        let returned = v("'Acegbdf'");
        assert_eq!(
            unpermute(&probe, &returned, &v("'Mmohamt'")),
            Some(v("'Mammoth'"))
        );
        // A rotation of a list by two.
        assert_eq!(
            unpermute(&v("[1, 2, 3, 4]"), &v("[3, 4, 1, 2]"), &v("[7, 8, 5, 6]")),
            Some(v("[5, 6, 7, 8]"))
        );
        // Not a rearrangement: nothing.
        assert_eq!(unpermute(&v("[1, 2]"), &v("[1, 4]"), &v("[1, 4]")), None);
        // The identity gives back the output, which was tried already.
        assert_eq!(unpermute(&v("'ab'"), &v("'ab'"), &v("'xy'")), None);
    }

    #[test]
    fn a_map_probe_names_preimages_aligned_or_reversed() {
        let wanted = v("[-3, 16, 4, -7, 0]");
        let probe = map_probe(&wanted).unwrap();
        let Value::List(items) = &probe else { panic!() };
        // f: even x -> x * x, odd x -> -x.
        let image = |x: &Value| match x {
            Value::Int(n) if n % 2 == 0 => Value::Int(n * n),
            Value::Int(n) => Value::Int(-n),
            _ => unreachable!(),
        };
        let f = |input: &Value| Value::List(input.elements().iter().map(image).collect());
        let returned = Value::List(items.iter().map(image).collect());
        let inputs = unmap(&probe, &returned, &wanted);
        assert_eq!(f(&inputs[0].0), wanted, "{inputs:?}");
        assert!(inputs[0].1.ends_with("item by item, as a probe run showed"));
        // The same map with the output reversed.
        let reversed = Value::List(items.iter().rev().map(image).collect());
        let inputs = unmap(&probe, &reversed, &wanted);
        let f_reversed =
            |input: &Value| Value::List(input.elements().iter().rev().map(image).collect());
        assert!(
            inputs.iter().any(|(input, _)| f_reversed(input) == wanted),
            "{inputs:?}"
        );
        // A character map: each letter moved one on.
        let wanted = v("'IBM 9000'");
        let probe = map_probe(&wanted).unwrap();
        let Value::Str(text) = &probe else { panic!() };
        let shifted: String = text
            .chars()
            .map(|c| {
                if c.is_ascii_alphabetic() {
                    (c as u8 + 1) as char
                } else {
                    c
                }
            })
            .collect();
        let inputs = unmap(&probe, &Value::Str(shifted), &wanted);
        assert_eq!(inputs[0].0, v("'HAL 9000'"), "{inputs:?}");
        // A run that dropped items says nothing.
        assert!(unmap(&v("[1, 2, 3]"), &v("[1, 2]"), &v("[1]")).is_empty());
    }
}
