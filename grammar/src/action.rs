//! Debugger actions: the five forward commands of pdb and the three inverse
//! ones, and their spelling on the command line.

/// One debugger action. Lines are 1-based.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    /// pdb `step`.
    StepInto,
    /// pdb `next`.
    StepOver,
    /// pdb `return`.
    StepReturn,
    /// pdb `tbreak LINE` then `continue`.
    Breakpoint(u32),
    /// pdb `continue` with no breakpoints.
    Continue,
    InvStepInto,
    InvStepOver,
    InvStepCall,
}

/// A word of an action list that is not an action.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown action `{word}`: expected one of step_into, step_over, step_return, breakpoint:LINE, continue, inv_step_into, inv_step_over, inv_step_call")]
pub struct ActionParseError {
    pub word: String,
}

impl Action {
    pub const FORWARD: [&'static str; 5] = [
        "step_into",
        "step_over",
        "step_return",
        "breakpoint",
        "continue",
    ];

    /// Parses one action as written on the command line: `step_into`,
    /// `breakpoint:12`, ...
    pub fn parse(word: &str) -> Result<Action, ActionParseError> {
        let word = word.trim();
        let error = || ActionParseError {
            word: word.to_string(),
        };
        if let Some(line) = word
            .strip_prefix("breakpoint:")
            .or_else(|| word.strip_prefix("breakpoint "))
        {
            return match line.trim().parse::<u32>() {
                Ok(line) if line > 0 => Ok(Action::Breakpoint(line)),
                _ => Err(error()),
            };
        }
        Ok(match word {
            "step_into" => Action::StepInto,
            "step_over" => Action::StepOver,
            "step_return" => Action::StepReturn,
            "continue" => Action::Continue,
            "inv_step_into" => Action::InvStepInto,
            "inv_step_over" => Action::InvStepOver,
            "inv_step_call" => Action::InvStepCall,
            _ => return Err(error()),
        })
    }

    /// Parses a comma-separated list of actions; empty words are skipped.
    pub fn parse_list(list: &str) -> Result<Vec<Action>, ActionParseError> {
        list.split(',')
            .filter(|word| !word.trim().is_empty())
            .map(Action::parse)
            .collect()
    }

    /// The command-line spelling, the inverse of [`Action::parse`].
    pub fn to_word(self) -> String {
        match self {
            Action::Breakpoint(line) => format!("breakpoint:{line}"),
            other => other.name().to_string(),
        }
    }

    /// The action's name without its argument.
    pub fn name(self) -> &'static str {
        match self {
            Action::StepInto => "step_into",
            Action::StepOver => "step_over",
            Action::StepReturn => "step_return",
            Action::Breakpoint(_) => "breakpoint",
            Action::Continue => "continue",
            Action::InvStepInto => "inv_step_into",
            Action::InvStepOver => "inv_step_over",
            Action::InvStepCall => "inv_step_call",
        }
    }

    pub fn is_inverse(self) -> bool {
        matches!(
            self,
            Action::InvStepInto | Action::InvStepOver | Action::InvStepCall
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_command_line_spelling() {
        let actions = Action::parse_list("step_into, breakpoint:7,inv_step_call").unwrap();
        assert_eq!(
            actions,
            vec![Action::StepInto, Action::Breakpoint(7), Action::InvStepCall]
        );
        let words: Vec<String> = actions.iter().map(|a| a.to_word()).collect();
        assert_eq!(words.join(","), "step_into,breakpoint:7,inv_step_call");
    }

    #[test]
    fn rejects_unknown_words_and_bad_lines() {
        assert!(Action::parse("jump").is_err());
        assert!(Action::parse("breakpoint:0").is_err());
        assert!(Action::parse("breakpoint:x").is_err());
    }
}
