//! Any byte on the wire: our own framing between stdin and
//! tower-lsp-server's transport, which ends the whole server after the first
//! frame it cannot decode. Frames are read here (`Content-Length` headers,
//! bounded), each body is checked to be a JSON-RPC message, and only those
//! are passed on; the rest get an answer of our own and a line on stderr:
//!
//! - a body that is not JSON (or not UTF-8): `-32700 Parse error`, id null;
//! - JSON that is not a request, notification or response: `-32600 Invalid
//!   Request`, with the message's id when it has one;
//! - a header block without `Content-Length`, or one whose length is over
//!   [`MAX_MESSAGE_BYTES`]: skipped, reading on at the next header;
//! - the input ending inside a message: the server ends as at end of input.
//!
//! The server's own output is read back frame by frame and written out whole,
//! so an answer of ours never lands inside one of its messages.

use std::io;

use serde_json::{json, Value};
use tokio::io::{
    AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt,
};
use tokio::sync::mpsc;
use tower_lsp_server::jsonrpc::{Request, Response};

/// The largest message accepted (a whole document in `didOpen` fits).
pub const MAX_MESSAGE_BYTES: usize = 64 << 20;
/// Header lines are read in chunks of at most this size.
const MAX_HEADER_LINE: u64 = 8 * 1024;

/// What the next frame on a stream is.
#[derive(Debug, PartialEq, Eq)]
pub enum Frame {
    /// A whole body (not yet checked).
    Body(Vec<u8>),
    /// The stream ended between frames.
    End,
    /// The stream ended inside a frame.
    Cut(String),
}

/// Reads `Content-Length` frames, skipping (and logging through `log`) what
/// cannot be framed.
pub struct FrameReader<R> {
    reader: R,
    log: fn(&str),
}

impl<R: AsyncBufRead + Unpin> FrameReader<R> {
    pub fn new(reader: R, log: fn(&str)) -> FrameReader<R> {
        FrameReader { reader, log }
    }

    pub async fn next(&mut self) -> io::Result<Frame> {
        let mut skipped = 0usize;
        loop {
            let mut content_length: Option<Result<usize, String>> = None;
            let mut in_block = false;
            loop {
                let mut line = Vec::new();
                let read = (&mut self.reader)
                    .take(MAX_HEADER_LINE)
                    .read_until(b'\n', &mut line)
                    .await?;
                if read == 0 {
                    if skipped > 0 {
                        (self.log)(&format!(
                            "skipped {skipped} bytes that are not a message header"
                        ));
                    }
                    return Ok(if in_block {
                        Frame::Cut("the input ended inside a message header".to_string())
                    } else {
                        Frame::End
                    });
                }
                let text = String::from_utf8_lossy(&line);
                let trimmed = text.trim_end_matches(['\r', '\n']);
                if trimmed.is_empty() && line.ends_with(b"\n") {
                    if in_block {
                        break;
                    }
                    continue;
                }
                // The last `Content-Length:` of the line, so that reading
                // resumes at a real header after junk without a newline.
                let lower = trimmed.to_ascii_lowercase();
                match lower.rfind("content-length:") {
                    Some(at) => {
                        if at > 0 {
                            skipped += at;
                        }
                        in_block = true;
                        let value = trimmed[at + "content-length:".len()..].trim();
                        content_length =
                            Some(value.parse::<usize>().map_err(|_| value.to_string()));
                    }
                    None if lower.starts_with("content-type:") && in_block => {}
                    None if lower.starts_with("content-type:") => in_block = true,
                    None => skipped += line.len(),
                }
            }
            if skipped > 0 {
                (self.log)(&format!(
                    "skipped {skipped} bytes that are not a message header"
                ));
                skipped = 0;
            }
            let length = match content_length {
                None => {
                    (self.log)("a message header without Content-Length was skipped");
                    continue;
                }
                Some(Err(value)) => {
                    (self.log)(&format!(
                        "a message header with an unreadable Content-Length `{value}` was skipped"
                    ));
                    continue;
                }
                Some(Ok(length)) if length > MAX_MESSAGE_BYTES => {
                    (self.log)(&format!(
                        "a message of {length} bytes is over the limit of {MAX_MESSAGE_BYTES}; skipped, reading on at the next header"
                    ));
                    continue;
                }
                Some(Ok(length)) => length,
            };
            let mut body = vec![0u8; length];
            let mut got = 0;
            while got < length {
                let read = self.reader.read(&mut body[got..]).await?;
                if read == 0 {
                    return Ok(Frame::Cut(format!(
                        "the input ended inside a message ({got} of {length} bytes)"
                    )));
                }
                got += read;
            }
            return Ok(Frame::Body(body));
        }
    }
}

/// `Content-Length: N\r\n\r\n` and the body.
pub fn encode(body: &[u8]) -> Vec<u8> {
    let mut frame = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    frame.extend_from_slice(body);
    frame
}

/// What the server does with one body.
#[derive(Debug, PartialEq)]
pub enum Checked {
    /// A JSON-RPC message: passed on.
    Message,
    /// Not passed on; this is the answer (a JSON-RPC error response).
    Refused(Value),
}

/// Whether `body` is a message tower-lsp-server can decode (the same
/// types its codec decodes into), else the error response it gets.
pub fn check(body: &[u8]) -> Checked {
    let text = match std::str::from_utf8(body) {
        Ok(text) => text,
        Err(error) => {
            return Checked::Refused(error_response(
                -32700,
                "Parse error",
                &error.to_string(),
                Value::Null,
            ))
        }
    };
    let value: Value = match serde_json::from_str(text) {
        Ok(value) => value,
        Err(error) => {
            return Checked::Refused(error_response(
                -32700,
                "Parse error",
                &error.to_string(),
                Value::Null,
            ))
        }
    };
    if serde_json::from_str::<Response>(text).is_ok()
        || serde_json::from_str::<Request>(text).is_ok()
    {
        return Checked::Message;
    }
    let id = match value.get("id") {
        Some(id @ (Value::Number(_) | Value::String(_))) => id.clone(),
        _ => Value::Null,
    };
    Checked::Refused(error_response(
        -32600,
        "Invalid Request",
        "the JSON is not a JSON-RPC 2.0 request, notification or response",
        id,
    ))
}

fn error_response(code: i64, message: &str, detail: &str, id: Value) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {"code": code, "message": format!("{message}: {detail}")},
    })
}

fn log(message: &str) {
    eprintln!("ndb lsp: {message}");
}

/// Serve `serve_inner` (the language server on a pair of in-process pipes)
/// behind the framing guard on `input` and `output`.
pub async fn guarded<I, O, F, Fut>(input: I, output: O, serve_inner: F)
where
    I: AsyncRead + Unpin + Send + 'static,
    O: AsyncWrite + Unpin + Send + 'static,
    F: FnOnce(tokio::io::DuplexStream, tokio::io::DuplexStream) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let (server_input, mut to_server) = tokio::io::duplex(1 << 16);
    let (server_output, from_server) = tokio::io::duplex(1 << 16);
    let (frames, mut outgoing) = mpsc::channel::<Vec<u8>>(64);

    let writer = tokio::spawn(async move {
        let mut output = output;
        while let Some(frame) = outgoing.recv().await {
            if output.write_all(&frame).await.is_err() || output.flush().await.is_err() {
                log("cannot write to the client; it is gone");
                return;
            }
        }
    });

    let answers = frames.clone();
    let reader = tokio::spawn(async move {
        let mut frames_in = FrameReader::new(tokio::io::BufReader::new(input), log);
        loop {
            match frames_in.next().await {
                Ok(Frame::Body(body)) => match check(&body) {
                    Checked::Message => {
                        if to_server.write_all(&encode(&body)).await.is_err() {
                            return;
                        }
                    }
                    Checked::Refused(answer) => {
                        log(&format!(
                            "answered a message that is not JSON-RPC: {}",
                            answer["error"]["message"].as_str().unwrap_or_default()
                        ));
                        let _ = answers.send(encode(answer.to_string().as_bytes())).await;
                    }
                },
                Ok(Frame::End) => return,
                Ok(Frame::Cut(what)) => {
                    log(&what);
                    return;
                }
                Err(error) => {
                    log(&format!("cannot read the input: {error}"));
                    return;
                }
            }
        }
        // Dropping `to_server` ends the server's input.
    });

    let copier = tokio::spawn(async move {
        let mut frames_out = FrameReader::new(tokio::io::BufReader::new(from_server), log);
        while let Ok(Frame::Body(body)) = frames_out.next().await {
            if frames.send(encode(&body)).await.is_err() {
                return;
            }
        }
    });

    serve_inner(server_input, server_output).await;
    // The server has ended (exit, or end of input): what it wrote is
    // copied out, then the writer finishes. The reader may be blocked on
    // stdin; it is not awaited.
    reader.abort();
    // Bounded: a transport that kept its writer would hold us here.
    let flushed = async {
        let _ = copier.await;
        let _ = writer.await;
    };
    let _ = tokio::time::timeout(std::time::Duration::from_secs(2), flushed).await;
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn frames_of(bytes: &[u8]) -> Vec<Frame> {
        let mut reader = FrameReader::new(bytes, |_| {});
        let mut frames = Vec::new();
        loop {
            let frame = reader.next().await.unwrap();
            let last = !matches!(frame, Frame::Body(_));
            frames.push(frame);
            if last {
                return frames;
            }
        }
    }

    #[tokio::test]
    async fn frames_are_read_and_junk_is_skipped() {
        let mut input = Vec::new();
        input.extend(encode(b"{\"a\":1}"));
        input.extend(b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n");
        input.extend(b"garbage without a newline");
        input.extend(encode(b"[2]"));
        input.extend(format!("Content-Length: {}\r\n\r\n", MAX_MESSAGE_BYTES + 1).as_bytes());
        input.extend(b"{\"huge\":");
        input.extend(encode(b"3"));
        input.extend(b"Content-Length: 10\r\n\r\n{\"cut");
        assert_eq!(
            frames_of(&input).await,
            [
                Frame::Body(b"{\"a\":1}".to_vec()),
                Frame::Body(b"[2]".to_vec()),
                Frame::Body(b"3".to_vec()),
                Frame::Cut("the input ended inside a message (5 of 10 bytes)".to_string()),
            ]
        );
    }

    #[test]
    fn bodies_that_are_not_messages_get_an_error_answer() {
        let parse_error = |body: &[u8]| match check(body) {
            Checked::Refused(answer) => (answer["error"]["code"].clone(), answer["id"].clone()),
            Checked::Message => panic!("{:?} passed", String::from_utf8_lossy(body)),
        };
        assert_eq!(
            parse_error(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\""),
            (json!(-32700), Value::Null)
        );
        assert_eq!(
            parse_error(b"{\"s\":\"\\ud800\"}"),
            (json!(-32700), Value::Null)
        );
        assert_eq!(parse_error(b"\xff\xfe"), (json!(-32700), Value::Null));
        assert_eq!(
            parse_error(b"{\"id\":7,\"hello\":1}"),
            (json!(-32600), json!(7))
        );
        assert_eq!(parse_error(b"[]"), (json!(-32600), Value::Null));
        assert_eq!(
            check(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"shutdown\"}"),
            Checked::Message
        );
        assert_eq!(
            check(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":null}"),
            Checked::Message
        );
    }
}
