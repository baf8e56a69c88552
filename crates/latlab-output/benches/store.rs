//! Store benchmark: write and read back one run holding a 10-million-sample latency series,
//! printing the time and the bytes on disk. Run with `cargo bench -p latlab-core --bench store`.

use latlab_model::record::{RunStatus, Series};
use latlab_output::store::Store;
use latlab_sys::record::Finish;
use std::time::Instant;

fn main() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("bench.db");
    let values = latlab_model::synth::latency_like(10_000_000);
    let mut r = latlab_sys::record::begin("rt");
    r.series.push(Series { name: "l1.latency".into(), unit: "ns".into(), description: String::new(), values });
    r.finish(RunStatus::Complete);
    let t = Instant::now();
    let id = Store::open(&path).expect("open").insert(&r).expect("insert");
    let write = t.elapsed();
    let t = Instant::now();
    let back = Store::open(&path).expect("open").load(id).expect("load");
    let read = t.elapsed();
    assert_eq!(back.series[0].values.len(), 10_000_000);
    let bytes: u64 =
        std::fs::read_dir(dir.path()).expect("dir").map(|e| e.expect("entry").metadata().expect("meta").len()).sum();
    println!(
        "store 10M samples: write {:.2} s, read {:.2} s, {:.1} MB on disk ({:.2} bytes/sample)",
        write.as_secs_f64(),
        read.as_secs_f64(),
        bytes as f64 / 1e6,
        bytes as f64 / 1e7
    );
}
