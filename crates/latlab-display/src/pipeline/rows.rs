//! The rows and columns of `display pipeline`'s tables: a sweep's stages per setting, a
//! workload's cost.

use super::Run;
use latlab_model::record::Column;

pub(super) fn pct(x: f64) -> serde_json::Value {
    ((x * 1000.0).round() / 10.0).into()
}

pub(super) fn r2(x: f64) -> serde_json::Value {
    ((x * 100.0).round() / 100.0).into()
}

pub(super) fn sweep_row(axis: &str, value: String, r: &Run) -> Vec<serde_json::Value> {
    let t = r.client.times;
    let secs = r.client.wall_ns.max(1) as f64 / 1e9;
    vec![
        axis.into(),
        value.into(),
        r2(r.wire_bps() / 1e6),
        pct(r.client_cpu()),
        pct(r.share(t.receive_ns)),
        pct(r.share(t.decrypt_ns)),
        pct(r.share(t.decompress_ns)),
        pct(r.share(t.decode_ns + t.cache_ns)),
        pct(r.share(t.blit_ns)),
        r2(r.client.reads as f64 / secs),
        pct(r.dropped()),
    ]
}

pub(super) fn sweep_columns(first: &str) -> Vec<Column> {
    let c = Column::new;
    vec![
        c(first, ""),
        c("setting", ""),
        c("wire", "MB/s"),
        c("client CPU", "% of a core"),
        c("receive", "%"),
        c("decrypt", "%"),
        c("decompress", "%"),
        c("decode+cache", "%"),
        c("blit", "%"),
        c("reads", "1/s"),
        c("dropped", "%"),
    ]
}

pub(super) fn workload_row(name: &str, r: &Run) -> Vec<serde_json::Value> {
    vec![
        name.into(),
        r2(r.wire_bps() / 1e3),
        pct(r.client_cpu()),
        pct(r.server_cpu()),
        r2(r.ns_per_byte()),
        pct(r.dropped()),
    ]
}
