//! Where a model's time goes on the fast backend, step by step:
//!
//!     cargo run --release -p webnn-fast --example profile [threads] [runs] [mobilenet|qdq|encoder]
//!
//! `mobilenet`: MobileNetV2 (the default); `qdq`: its QDQ form (`webnn_models::qdq`); `encoder`: the small BERT-style encoder
//! (`EncoderConfig::default()`, hidden 128, sequence 16) that the ONNX Runtime Web page runs,
//! whose run time is mostly per-step cost rather than arithmetic.

use std::collections::HashMap;
use webnn_cpu::Tensor;
use webnn_fast::FastBackend;
use webnn_models::{EncoderConfig, ENCODER_INPUTS};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let number = |i: usize, default: usize| args.get(i).and_then(|a| a.parse().ok()).unwrap_or(default);
    let threads = number(0, 1);
    let runs = number(1, 30);
    let model = args.get(2).map(String::as_str).unwrap_or("mobilenet");
    let (graph, inputs) = match model {
        "mobilenet" => {
            let image = webnn_models::sample_image(11);
            let input = Tensor::from_bytes(&image.desc, &image.bytes).expect("input");
            (webnn_models::mobilenet_v2(7).expect("MobileNetV2 builds"), HashMap::from([("input".to_owned(), input)]))
        }
        "qdq" => {
            let image = webnn_models::sample_image(11);
            let input = Tensor::from_bytes(&image.desc, &image.bytes).expect("input");
            let f32_graph = webnn_models::mobilenet_v2(7).expect("MobileNetV2 builds");
            (webnn_models::qdq(&f32_graph).expect("QDQ graph"), HashMap::from([("input".to_owned(), input)]))
        }
        "encoder" => {
            let config = EncoderConfig::default();
            let (ids, mask) = webnn_models::encoder_sample(&config, 11, 5);
            let tensor = |t, bytes: Vec<u8>| {
                Tensor::from_bytes(&webnn_core::OperandDescriptor::new(t, &[1, config.seq]), &bytes).expect("input")
            };
            let ids = tensor(webnn_core::DataType::Int32, ids.iter().flat_map(|v| v.to_le_bytes()).collect());
            let mask = tensor(webnn_core::DataType::Float32, mask.iter().flat_map(|v| v.to_le_bytes()).collect());
            let graph = webnn_models::bert_encoder(&config, 11).expect("the encoder builds");
            (graph, HashMap::from([(ENCODER_INPUTS[0].to_owned(), ids), (ENCODER_INPUTS[1].to_owned(), mask)]))
        }
        other => panic!("unknown model {other}: mobilenet, qdq or encoder"),
    };
    let fast = FastBackend::new(threads);
    let compiled = fast.compile_graph(&graph).expect("compile");
    let steps = compiled.profile(&inputs, runs).expect("profile");
    let total: f64 = steps.iter().map(|(_, t)| t).sum();
    for (name, t) in &steps {
        println!("{:8.1} us {:5.1}%  {name}", t * 1e6, 100.0 * t / total);
    }
    println!("{:8.1} us total (sum of step medians), {} steps, {threads} thread(s)", total * 1e6, steps.len());
}
