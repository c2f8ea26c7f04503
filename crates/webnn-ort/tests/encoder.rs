//! The BERT-style encoder (`webnn_models::bert_encoder`) and the style transfer network on
//! ONNX Runtime against the cpu backend, converted both ways: the normalizations spelt out in
//! float64 (the default) and as ONNX's LayerNormalization and InstanceNormalization ops (what
//! framework exports and the pages that run ONNX Runtime Web use).

mod common;

use webnn_core::{Backend, DataType, HostTensor, OperandDescriptor};
use webnn_onnx::ConvertOptions;

fn floats(t: &HostTensor) -> Vec<f32> {
    t.bytes.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

#[test]
fn bert_encoder_matches_the_cpu_backend_with_either_layer_normalization() {
    let config = webnn_models::EncoderConfig::default();
    let graph = webnn_models::bert_encoder(&config, 11).unwrap();
    let (ids, mask) = webnn_models::encoder_sample(&config, 11, 5);
    let ids = HostTensor {
        desc: OperandDescriptor::new(DataType::Int32, &[1, config.seq]),
        bytes: ids.iter().flat_map(|v| v.to_le_bytes()).collect(),
    };
    let mask = HostTensor {
        desc: OperandDescriptor::new(DataType::Float32, &[1, config.seq]),
        bytes: mask.iter().flat_map(|v| v.to_le_bytes()).collect(),
    };
    let inputs = [("input_ids", &ids), ("attention_mask", &mask)];
    let want = webnn_cpu::CpuBackend.compile(&graph).unwrap().dispatch(&inputs).unwrap();
    for op in [false, true] {
        let model = webnn_onnx::convert_with(&graph, ConvertOptions { normalization_ops: op, ..Default::default() }).unwrap();
        let nodes = &model.model.graph.as_ref().unwrap().node;
        let count = nodes.iter().filter(|n| n.op_type.as_deref() == Some("LayerNormalization")).count();
        assert_eq!(count, if op { 5 } else { 0 }, "LayerNormalization nodes");
        let got = common::ort().compile_model(&model).unwrap().dispatch(&inputs).unwrap();
        for ((name, g), (_, w)) in got.iter().zip(&want) {
            let worst = floats(g).iter().zip(floats(w)).map(|(a, b)| (a - b).abs()).fold(0f32, f32::max);
            assert!(worst < 1e-4, "{name} (LayerNormalization op: {op}): worst difference {worst}");
        }
    }
}

/// The style transfer network's instanceNormalizations, spelt out and as ONNX's
/// InstanceNormalization op (what the loadOnnx page's export uses), against the cpu backend.
#[test]
fn style_transfer_matches_the_cpu_backend_with_either_instance_normalization() {
    let graph = webnn_models::style_transfer(32, 5).unwrap();
    let values: Vec<f32> = (0..3 * 32 * 32).map(|i| (i * 7919 % 1000) as f32 / 500.0 - 1.0).collect();
    let x = HostTensor {
        desc: OperandDescriptor::new(DataType::Float32, &[1, 3, 32, 32]),
        bytes: values.iter().flat_map(|v| v.to_le_bytes()).collect(),
    };
    let inputs = [(webnn_models::STYLE_INPUT, &x)];
    let want = webnn_cpu::CpuBackend.compile(&graph).unwrap().dispatch(&inputs).unwrap();
    for op in [false, true] {
        let model = webnn_onnx::convert_with(&graph, ConvertOptions { normalization_ops: op, ..Default::default() }).unwrap();
        let nodes = &model.model.graph.as_ref().unwrap().node;
        let count = nodes.iter().filter(|n| n.op_type.as_deref() == Some("InstanceNormalization")).count();
        assert_eq!(count, if op { 15 } else { 0 }, "InstanceNormalization nodes");
        let got = common::ort().compile_model(&model).unwrap().dispatch(&inputs).unwrap();
        let worst = floats(&got[0].1).iter().zip(floats(&want[0].1)).map(|(a, b)| (a - b).abs()).fold(0f32, f32::max);
        assert!(worst < 1e-4, "InstanceNormalization op: {op}: worst difference {worst}");
    }
}
