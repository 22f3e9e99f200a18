//! The typed error of every setting spelled as one of a fixed set of names
//! (a backend, a weight format, a question form).

/// A name that is none of the accepted ones.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown {what} `{given}`; one of: {accepted}")]
pub struct UnknownChoice {
    /// What was being named (`backend`, `weight format`, `form`).
    pub what: &'static str,
    pub given: String,
    /// The accepted names, as shown to people.
    pub accepted: String,
}

impl UnknownChoice {
    pub fn new(what: &'static str, given: &str, accepted: impl Into<String>) -> UnknownChoice {
        UnknownChoice {
            what,
            given: given.to_string(),
            accepted: accepted.into(),
        }
    }
}
