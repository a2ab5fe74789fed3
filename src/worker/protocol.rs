//! The worker protocol: frames over a worker process's stdin and stdout.
//!
//! A frame is a 4-byte little-endian length and that many bytes of JSON. The
//! parent sends a [`Request::Hello`] with the executor's configuration, the
//! worker answers [`Reply::Ready`] once its interpreter is built and the
//! worker confined (`confine.rs`), saying how; then each
//! [`Request::Run`] is answered by one [`Reply::Ran`]. Nothing else crosses
//! the pipes: the worker's stderr carries only what dies with it (an abort
//! message, a stack overflow), which the parent keeps for the crash report.

use super::confine::Confinement;
use crate::executor::{Config, Outcome, Phases, SyntaxError};
use serde::{de::DeserializeOwned, Deserialize, Serialize};
use std::io::{self, Read, Write};

/// Frames larger than this are a protocol error, not an allocation. An
/// outcome is bounded well below it (stdout by its limit, the globals and
/// messages by `executor/src/bounds.rs`); a frame this size, parsed, keeps
/// this process under 1 GiB where a target's worker sends one on purpose.
pub const MAX_FRAME: usize = 128 << 20;

#[derive(Serialize, Deserialize)]
pub enum Request {
    /// `gpu`: open the GPU before confinement (`staged-gpu` runs follow).
    Hello {
        config: Config,
        #[serde(default)]
        gpu: bool,
    },
    Run {
        source: String,
        path: String,
        mode: crate::staging::Mode,
    },
}

#[derive(Serialize, Deserialize)]
pub enum Reply {
    /// The interpreter is built and the worker confined ([`Confinement`]).
    Ready {
        #[serde(default)]
        confinement: Confinement,
    },
    Ran {
        reply: Result<Outcome, SyntaxError>,
        phases: Phases,
    },
}

/// A message as one frame's bytes.
pub fn encode<T: Serialize>(message: &T) -> io::Result<Vec<u8>> {
    let mut frame = vec![0u8; 4];
    serde_json::to_writer(&mut frame, message).map_err(io::Error::other)?;
    let len = (frame.len() - 4) as u32;
    frame[..4].copy_from_slice(&len.to_le_bytes());
    Ok(frame)
}

pub fn write_frame<T: Serialize>(out: &mut impl Write, message: &T) -> io::Result<()> {
    out.write_all(&encode(message)?)?;
    out.flush()
}

/// Reads one frame; `Ok(None)` at a clean end of stream.
pub fn read_frame<T: DeserializeOwned>(input: &mut impl Read) -> io::Result<Option<T>> {
    let mut len = [0u8; 4];
    match input.read_exact(&mut len) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e),
    }
    let mut body = vec![0u8; frame_len(len)?];
    input.read_exact(&mut body)?;
    from_slice_deep(&body).map(Some).map_err(io::Error::other)
}

/// `serde_json::from_slice` without its limit of 128 nested levels. A
/// rendered value nests up to `render::MAX_DEPTH` (48) containers, each up to
/// 4 levels of JSON (an instance: its object, its attributes, a pair, the
/// value), so a linked list of 40 objects left in a global exceeded the limit
/// and the run read as a crash ("a reply that does not parse"). The renderer
/// bounds the depth (about 200 levels), so parsing cannot run off the stack.
pub fn from_slice_deep<T: DeserializeOwned>(bytes: &[u8]) -> serde_json::Result<T> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    de.disable_recursion_limit();
    let value = T::deserialize(&mut de)?;
    de.end()?;
    Ok(value)
}

/// The length a frame's header announces, refused past [`MAX_FRAME`].
pub fn frame_len(header: [u8; 4]) -> io::Result<usize> {
    let len = u32::from_le_bytes(header) as usize;
    if len > MAX_FRAME {
        return Err(io::Error::other(format!("frame of {len} bytes exceeds the protocol's limit")));
    }
    Ok(len)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_round_trip_and_end_cleanly() {
        let mut buf = Vec::new();
        write_frame(&mut buf, &Request::Run { source: "x = 1\n".into(), path: "p.py".into(), mode: crate::staging::Mode::Staged }).unwrap();
        let mut input = &buf[..];
        match read_frame::<Request>(&mut input).unwrap() {
            Some(Request::Run { source, path, mode }) => {
                assert_eq!((source.as_str(), path.as_str(), mode), ("x = 1\n", "p.py", crate::staging::Mode::Staged));
            }
            _ => panic!("not the run request written"),
        }
        assert!(read_frame::<Request>(&mut input).unwrap().is_none());
    }

    #[test]
    fn an_oversized_or_cut_frame_is_an_error() {
        let mut huge = &((MAX_FRAME as u32) + 1).to_le_bytes()[..];
        assert!(read_frame::<Reply>(&mut huge).is_err());
        let mut cut = &[10u8, 0, 0, 0, b'{'][..];
        assert!(read_frame::<Reply>(&mut cut).is_err());
    }
}
