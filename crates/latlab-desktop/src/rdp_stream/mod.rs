//! A real RDP server's display stream, read by latlab into its own framebuffer: fast-path
//! output (headers, latlab's bulk decompression, reassembly), slow-path data PDUs, and both
//! paths into the decoder, counted. No TLS here: the fuzzer builds these parsers alone.
//!
//! | file | holds |
//! |---|---|
//! | `fastpath.rs` | fast-path output: headers, latlab's bulk decompression, reassembly |
//! | `slowpath.rs` | slow-path data PDUs: Update PDUs read by latlab, the rest rebuilt for IronRDP |
//! | `stream.rs` | latlab's side of the display stream: both paths into the decoder, counted |

pub mod fastpath;
pub mod slowpath;
pub mod stream;
