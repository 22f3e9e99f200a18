//! Any byte on the wire: a guard between stdin and rmcp's stdio transport
//! (newline-delimited JSON). Each line is checked before rmcp sees it:
//!
//! - a line that is not JSON (or not UTF-8) gets `-32700 Parse error`, id
//!   null, and the server reads on (rmcp would drop it without a word);
//! - JSON that is not an object or array (`42`, `"x"`) gets `-32600 Invalid
//!   Request`;
//! - a line longer than [`MAX_LINE_BYTES`] is skipped to its end and gets
//!   `-32600`; blank lines are ignored;
//! - JSON objects go on to rmcp, which answers malformed requests itself.
//!
//! The server's own output is read back line by line and written out whole,
//! so an answer of ours never lands inside one of its messages.

use serde_json::{json, Value};
use tokio::io::{
    AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt,
};
use tokio::sync::mpsc;

/// The longest line accepted (sources are at most 512 KiB, escaped).
pub const MAX_LINE_BYTES: usize = 8 << 20;

/// One line of input, read with a bound.
#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    Text(Vec<u8>),
    /// Longer than the bound; the rest up to its newline was discarded.
    TooLong(usize),
    End,
}

/// Read one line (without its `\n` / `\r\n`), at most `max` bytes kept.
pub async fn read_line<R: AsyncBufRead + Unpin>(
    reader: &mut R,
    max: usize,
) -> std::io::Result<Line> {
    let mut line = Vec::new();
    let read = (&mut *reader)
        .take(max as u64 + 1)
        .read_until(b'\n', &mut line)
        .await?;
    if read == 0 {
        return Ok(Line::End);
    }
    if line.last() == Some(&b'\n') {
        line.pop();
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        return Ok(Line::Text(line));
    }
    if line.len() <= max {
        // The input ended without a newline: the last line.
        return Ok(Line::Text(line));
    }
    // Discard the rest of the line without keeping it.
    let mut total = line.len();
    loop {
        let buffer = reader.fill_buf().await?;
        if buffer.is_empty() {
            return Ok(Line::TooLong(total));
        }
        match buffer.iter().position(|&byte| byte == b'\n') {
            Some(at) => {
                reader.consume(at + 1);
                return Ok(Line::TooLong(total + at));
            }
            None => {
                let length = buffer.len();
                reader.consume(length);
                total += length;
            }
        }
    }
}

/// What the guard does with one line.
#[derive(Debug, PartialEq)]
pub enum Checked {
    Pass,
    Ignore,
    Refused(Value),
}

pub fn check(line: &[u8]) -> Checked {
    if line.iter().all(u8::is_ascii_whitespace) {
        return Checked::Ignore;
    }
    let value: Value = match std::str::from_utf8(line)
        .map_err(|error| error.to_string())
        .and_then(|text| serde_json::from_str(text).map_err(|error| error.to_string()))
    {
        Ok(value) => value,
        Err(error) => return Checked::Refused(error_response(-32700, "Parse error", &error)),
    };
    match value {
        Value::Object(_) | Value::Array(_) => Checked::Pass,
        _ => Checked::Refused(error_response(
            -32600,
            "Invalid Request",
            "a message must be a JSON object",
        )),
    }
}

fn error_response(code: i64, message: &str, detail: &str) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": Value::Null,
        "error": {"code": code, "message": format!("{message}: {detail}")},
    })
}

fn encode(value: &Value) -> Vec<u8> {
    let mut line = value.to_string().into_bytes();
    line.push(b'\n');
    line
}

/// The pair of streams the MCP service runs on inside the guard, and the
/// tasks that connect them to the real `input` and `output`. Call
/// [`Guard::finish`] once the service has stopped.
pub struct Guard {
    reader: tokio::task::JoinHandle<()>,
    copier: tokio::task::JoinHandle<()>,
    writer: tokio::task::JoinHandle<()>,
}

impl Guard {
    pub fn start<I, O>(
        input: I,
        output: O,
    ) -> (Guard, tokio::io::DuplexStream, tokio::io::DuplexStream)
    where
        I: AsyncRead + Unpin + Send + 'static,
        O: AsyncWrite + Unpin + Send + 'static,
    {
        let (service_input, mut to_service) = tokio::io::duplex(1 << 16);
        let (service_output, from_service) = tokio::io::duplex(1 << 16);
        let (lines, mut outgoing) = mpsc::channel::<Vec<u8>>(64);

        let writer = tokio::spawn(async move {
            let mut output = output;
            while let Some(line) = outgoing.recv().await {
                if output.write_all(&line).await.is_err() || output.flush().await.is_err() {
                    eprintln!("ndb mcp: cannot write to the client; it is gone");
                    return;
                }
            }
        });
        let answers = lines.clone();
        let reader = tokio::spawn(async move {
            let mut input = tokio::io::BufReader::new(input);
            loop {
                match read_line(&mut input, MAX_LINE_BYTES).await {
                    Ok(Line::Text(line)) => match check(&line) {
                        Checked::Pass => {
                            let mut framed = line;
                            framed.push(b'\n');
                            if to_service.write_all(&framed).await.is_err() {
                                return;
                            }
                        }
                        Checked::Ignore => {}
                        Checked::Refused(answer) => {
                            eprintln!(
                                "ndb mcp: answered a line that is not a JSON-RPC message: {}",
                                answer["error"]["message"].as_str().unwrap_or_default()
                            );
                            let _ = answers.send(encode(&answer)).await;
                        }
                    },
                    Ok(Line::TooLong(length)) => {
                        eprintln!("ndb mcp: skipped a line of {length} bytes, over the limit of {MAX_LINE_BYTES}");
                        let answer = error_response(
                            -32600,
                            "Invalid Request",
                            &format!(
                                "a message of {length} bytes is over the limit of {MAX_LINE_BYTES}"
                            ),
                        );
                        let _ = answers.send(encode(&answer)).await;
                    }
                    Ok(Line::End) => return,
                    Err(error) => {
                        eprintln!("ndb mcp: cannot read the input: {error}");
                        return;
                    }
                }
            }
        });
        let copier = tokio::spawn(async move {
            let mut from_service = tokio::io::BufReader::new(from_service);
            loop {
                let mut line = Vec::new();
                match from_service.read_until(b'\n', &mut line).await {
                    Ok(0) | Err(_) => return,
                    Ok(_) => {
                        if lines.send(line).await.is_err() {
                            return;
                        }
                    }
                }
            }
        });
        (
            Guard {
                reader,
                copier,
                writer,
            },
            service_input,
            service_output,
        )
    }

    /// Write out what the stopped service wrote, then stop.
    pub async fn finish(self) {
        self.reader.abort();
        // Bounded: a transport that kept its writer would hold us here.
        let flushed = async {
            let _ = self.copier.await;
            let _ = self.writer.await;
        };
        let _ = tokio::time::timeout(std::time::Duration::from_secs(2), flushed).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn lines_are_bounded() {
        let mut input: &[u8] = b"{\"a\":1}\r\nabcdefghij\nlast";
        assert_eq!(
            read_line(&mut input, 8).await.unwrap(),
            Line::Text(b"{\"a\":1}".to_vec())
        );
        assert_eq!(read_line(&mut input, 8).await.unwrap(), Line::TooLong(10));
        assert_eq!(
            read_line(&mut input, 8).await.unwrap(),
            Line::Text(b"last".to_vec())
        );
        assert_eq!(read_line(&mut input, 8).await.unwrap(), Line::End);
    }

    #[test]
    fn lines_that_are_not_json_get_a_parse_error() {
        let code = |line: &[u8]| match check(line) {
            Checked::Refused(answer) => answer["error"]["code"].as_i64(),
            _ => None,
        };
        assert_eq!(code(b"{\"jsonrpc\": \"2.0\", \"id\": 1"), Some(-32700));
        assert_eq!(code(b"{\"x\": \"\\ud800\"}"), Some(-32700));
        assert_eq!(code(b"\xff"), Some(-32700));
        assert_eq!(code(b"42"), Some(-32600));
        assert_eq!(check(b"  "), Checked::Ignore);
        assert_eq!(
            check(b"{\"jsonrpc\":\"2.0\",\"method\":\"ping\",\"id\":1}"),
            Checked::Pass
        );
    }
}
