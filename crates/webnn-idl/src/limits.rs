//! `MLOpSupportLimits` as the dictionary pages read: `limits[op][operand].dataTypes` and
//! `.rankRange`, every op of the table present (frameworks treat a missing entry as
//! unsupported).

use serde_json::{json, Map, Value};
use webnn_core::limits::TensorLimits;
use webnn_core::ops::InputLayout;
use webnn_core::OpSupportLimits;

fn tensor(l: &TensorLimits) -> Value {
    let types: Vec<&str> = l.data_types.iter().map(|t| t.name()).collect();
    json!({"dataTypes": types, "rankRange": {"min": l.min_rank, "max": l.max_rank}})
}

pub fn to_json(l: &OpSupportLimits) -> Value {
    let mut m = Map::new();
    let layout = match l.preferred_input_layout {
        InputLayout::Nchw => "nchw",
        InputLayout::Nhwc => "nhwc",
    };
    m.insert("preferredInputLayout".into(), layout.into());
    m.insert("maxTensorByteLength".into(), l.max_tensor_byte_length.into());
    m.insert("input".into(), tensor(&l.input));
    m.insert("constant".into(), tensor(&l.constant));
    m.insert("output".into(), tensor(&l.output));
    for (kind, slots) in &l.ops {
        let slots: Map<String, Value> = slots.iter().map(|(name, t)| ((*name).to_owned(), tensor(t))).collect();
        m.insert(kind.name().to_owned(), Value::Object(slots));
    }
    Value::Object(m)
}
