//! Every op on every data type the backend reports for it, against the cpu backend: the
//! cases of `common::cases` (odd sizes across packed words, broadcasting, options).

mod common;

use common::cases::cases;
use common::{gpu, mismatch};
use webnn_core::{Backend, DataTypeSet, OpKind};
use webnn_cpu::CpuBackend;

#[test]
fn every_op_on_every_supported_type_matches_the_cpu_backend() {
    let mut failures = Vec::new();
    let mut graphs = 0;
    for &kind in OpKind::ALL {
        let wanted = DataTypeSet(webnn_wgpu::supported(kind).0 & kind.slots()[0].data_types.0);
        let mut covered = DataTypeSet::NONE;
        for t in wanted.iter() {
            for case in cases(kind, t) {
                covered = covered | DataTypeSet(1 << t as u16);
                graphs += 1;
                let feeds: Vec<(&str, &webnn_core::HostTensor)> =
                    case.feeds.iter().map(|(n, t)| (n.as_str(), t)).collect();
                let got = gpu()
                    .compile(&case.graph)
                    .and_then(|mut e| e.dispatch(&feeds));
                let want = CpuBackend
                    .compile(&case.graph)
                    .and_then(|mut e| e.dispatch(&feeds));
                match (got, want) {
                    (Ok(got), Ok(want)) => {
                        // Linear resampling to an integer type rounds a value computed in f32
                        // here and in f64 there: a result within an ulp of .5 may round
                        // either way.
                        let slack = u8::from(kind == OpKind::Resample2d);
                        for ((name, g), (_, w)) in got.iter().zip(&want) {
                            if let Some(why) = mismatch(g, w, slack) {
                                failures.push(format!("{}: {name}: {why}", case.name));
                            }
                        }
                    }
                    (got, want) => failures.push(format!(
                        "{}: wgpu {:?} / cpu {:?}",
                        case.name,
                        got.err(),
                        want.err()
                    )),
                }
            }
        }
        assert_eq!(
            covered, wanted,
            "{kind:?}: the cases cover {covered}, the backend reports {wanted}"
        );
    }
    println!("{graphs} graphs");
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Native float16 loads (shader-f16) and packed-word decoding give the same bits.
#[test]
fn native_and_packed_float16_agree() {
    if !gpu().gpu().shader_f16 {
        println!("the adapter has no shader-f16: nothing to compare");
        return;
    }
    let packed = webnn_wgpu::WgpuBackend::with_gpu(gpu().gpu().clone()).with_packed_f16();
    let mut graphs = 0;
    for &kind in OpKind::ALL {
        for case in cases(kind, webnn_core::DataType::Float16) {
            let feeds: Vec<(&str, &webnn_core::HostTensor)> =
                case.feeds.iter().map(|(n, t)| (n.as_str(), t)).collect();
            let native = gpu()
                .compile(&case.graph)
                .and_then(|mut e| e.dispatch(&feeds));
            let words = packed
                .compile(&case.graph)
                .and_then(|mut e| e.dispatch(&feeds));
            assert_eq!(native.unwrap(), words.unwrap(), "{}", case.name);
            graphs += 1;
        }
    }
    assert!(graphs > 60, "{graphs}");
}
