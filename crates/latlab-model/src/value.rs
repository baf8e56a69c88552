//! A metric value: an integer (nanoseconds, counts, bytes) or a real (ratios, rates).

use serde::{Deserialize, Serialize};

/// A metric value: integers stay integers (nanoseconds, counts), the rest are floats.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Value {
    /// Integer value (ns, count, bytes).
    Int(i64),
    /// Real value (ratio, Hz, mean).
    Float(f64),
}

impl Value {
    /// As f64 for arithmetic and plotting.
    pub fn as_f64(self) -> f64 {
        match self {
            Value::Int(i) => i as f64,
            Value::Float(f) => f,
        }
    }
}

impl From<i64> for Value {
    fn from(v: i64) -> Self {
        Value::Int(v)
    }
}
impl From<u64> for Value {
    fn from(v: u64) -> Self {
        Value::Int(v as i64)
    }
}
impl From<f64> for Value {
    fn from(v: f64) -> Self {
        Value::Float(v)
    }
}
